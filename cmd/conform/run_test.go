package main_test

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"

	"github.com/conform-mcp/conform/harness/fakehost"
)

// credentialEnv is the variable the profiles below name; the credential only
// ever reaches the binary through it, never through argv.
const credentialEnv = "FAKE_HOST_TOKEN"

// profileFor writes a profile for a fake host that takes its credential from
// credentialEnv.
func profileFor(f fake) string {
	return writeFile("profile.yaml", fmt.Sprintf("target: %s\ncredential_env: %s\n", f.url, credentialEnv))
}

var _ = Describe("conform run", func() {
	Context("with no target", func() {
		It("runs every scenario against the in-process reference host and passes", func() {
			total := len(listed())
			s := exits(conform(nil, "run"), 0)
			Expect(s.Out).To(gbytes.Say(`(?m)^%d passed, 0 failed$`, total))
		})

		It("runs only the scenarios of a source section", func() {
			want := len(listed("7.2"))
			s := exits(conform(nil, "run", "7.2"), 0)
			Expect(s.Out).To(gbytes.Say(`(?m)^%d passed, 0 failed$`, want))
			Expect(want).To(BeNumerically("<", len(listed())), "a section is a strict subset")
		})

		It("runs only the scenarios a tag expression selects", func() {
			ids := listed("--tags", "@T401-4")
			s := exits(conform(nil, "run", "--tags", "@T401-4"), 0)
			Expect(s.Out).To(gbytes.Say(`(?m)^%d passed, 0 failed$`, len(ids)))
			for _, id := range ids {
				// IDs are "<feature file>: <scenario name>"; pretty prints the name.
				Expect(stdout(s)).To(ContainSubstring(id[strings.Index(id, ": ")+2:]))
			}
		})

		It("writes every report of a comma-separated --format at once", func() {
			dir := GinkgoT().TempDir()
			junit, cucumber, html := filepath.Join(dir, "j.xml"), filepath.Join(dir, "c.json"), filepath.Join(dir, "r.html")
			total := len(listed())
			exits(conform(nil, "run", "--format", "progress,junit:"+junit+",cucumber:"+cucumber+",html:"+html), 0)

			raw, err := os.ReadFile(junit)
			Expect(err).NotTo(HaveOccurred())
			var suites struct {
				XMLName xml.Name `xml:"testsuites"`
				Tests   int      `xml:"tests,attr"`
				Suites  []struct {
					Cases []struct {
						Name string `xml:"name,attr"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			Expect(xml.Unmarshal(raw, &suites)).To(Succeed())
			cases := 0
			for _, s := range suites.Suites {
				cases += len(s.Cases)
			}
			Expect(suites.Tests).To(Equal(total))
			Expect(cases).To(Equal(total))

			raw, err = os.ReadFile(cucumber)
			Expect(err).NotTo(HaveOccurred())
			var features []struct {
				URI      string            `json:"uri"`
				Elements []json.RawMessage `json:"elements"`
			}
			Expect(json.Unmarshal(raw, &features)).To(Succeed())
			elements := 0
			for _, f := range features {
				elements += len(f.Elements)
			}
			Expect(elements).To(Equal(total))

			raw, err = os.ReadFile(html)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(raw)).To(ContainSubstring(`<table class="matrix">`))
			Expect(string(raw)).To(ContainSubstring("Outcomes by section of the source document"))
		})

		It("says the exit meaning and the summary on stderr when every report goes to a file (issue 24 item 5)", func() {
			report := filepath.Join(GinkgoT().TempDir(), "r.json")
			want := len(listed("7.2"))
			s := exits(conform(nil, "run", "7.2", "--format", "json:"+report), 0)
			Expect(stdout(s)).To(BeEmpty())
			Expect(stderr(s)).To(Equal(fmt.Sprintf("exit 0: every selected scenario ran and passed\n%d passed, 0 failed\n", want)))
			Expect(report).To(BeAnExistingFile())
		})

		It("lists in progress what passed scenarios observed only with -v (issue 24 item 5)", func() {
			s := exits(conform(nil, "run", "7.3", "--format", "progress"), 0)
			Expect(stdout(s)).NotTo(ContainSubstring("observed:"))
			Expect(stdout(s)).To(MatchRegexp(`(?m)^\d+ passed, 0 failed$`))
			s = exits(conform(nil, "run", "7.3", "--format", "progress", "-v"), 0)
			Expect(stdout(s)).To(ContainSubstring("observed: the host took the device grant as"))
		})

		It("never exits 0 when the selection runs nothing", func() {
			s := conform(nil, "run", "--tags", "@NO-SUCH-TAG")
			Eventually(s, 60*time.Second).Should(gexec.Exit())
			Expect(s.ExitCode()).To(BeElementOf(2, 3))
		})
	})

	Context("against a host that breaks a MUST", func() {
		It("fails with the requirement, expected and actual, and never prints the credential", func() {
			f := serveFake([]fakehost.Break{fakehost.ChallengeMissing})
			s := exits(conform([]string{credentialEnv + "=" + f.credential}, "run", "--profile", profileFor(f)), 1)
			Expect(s.Out).To(gbytes.Say(`✗ .*FAILED`))
			Expect(s.Out).To(gbytes.Say(`T401-2, section 7\.2 \(MUST\)`))
			Expect(s.Out).To(gbytes.Say(`expected: .*resource_metadata`))
			Expect(s.Out).To(gbytes.Say(`actual: `))
			// The credential was used: the scenarios that need it ran.
			Expect(stdout(s)).NotTo(ContainSubstring("set credential_env"))
			Expect(stdout(s)).NotTo(ContainSubstring(f.credential))
			Expect(stderr(s)).NotTo(ContainSubstring(f.credential))
		})
	})

	Context("against a host that breaks only a SHOULD", func() {
		DescribeTable("passes without --strict and fails with it",
			func(tag string, breaks []fakehost.Break, oauthBreaks []fakehost.OAuthBreak) {
				f := serveFake(breaks, oauthBreaks...)
				s := exits(conform(nil, "run", "--target", f.url, "--tags", tag), 0)
				// Every line agrees with exit 0 (issue 24 item 2).
				Expect(s.Out).To(gbytes.Say(`(?m)^exit 0: every selected scenario ran, and no failure counts against the host \(tolerated: 1 SHOULD failure, which counts only with --strict\)\n\d+ passed, 1 failed \(1 tolerated\)$`))

				f = serveFake(breaks, oauthBreaks...)
				s = exits(conform(nil, "run", "--strict", "--target", f.url, "--tags", tag), 1)
				Expect(s.Out).To(gbytes.Say(`\(SHOULD\)`))
			},
			Entry("a 401 body that is not application/json", "@T401-8", []fakehost.Break{fakehost.BodyNotJSON}, nil),
			Entry("OAuth errors served as text", "@OAUTH-8", nil, []fakehost.OAuthBreak{fakehost.ErrorsAsText}),
		)
	})

	Context("against a compliant host with no credential in the environment", func() {
		It("is incomplete, and says the credential scenarios need credential_env", func() {
			f := serveFake(nil)
			s := exits(conform(nil, "run", "--profile", profileFor(f)), 3)
			Expect(s.Out).To(gbytes.Say(`not run: needs a credential: set credential_env \(now "` + credentialEnv + `"\)`))
			Expect(stdout(s)).To(MatchRegexp(`(?m)^\d+ passed, 0 failed, \d+ not run$`))
		})
	})

	Context("with --expected-failures", func() {
		// Under ChallengeMissing, of the scenarios @T401-5 selects only one
		// fails (the challenge of the anonymous privileged call); the others,
		// which check the status alone, pass.
		var failing string
		var selected int
		BeforeEach(func() {
			ids := listed("--tags", "@T401-5")
			selected = len(ids)
			Expect(selected).To(BeNumerically(">", 1))
			for _, id := range ids {
				if strings.HasPrefix(id, "7_2_transport_401.feature: ") {
					failing = id
				}
			}
			Expect(failing).NotTo(BeEmpty())
		})

		It("lets a listed failure pass the run", func() {
			file := writeFile("expected.txt", "# known departures\n\n"+failing+"\n")
			f := serveFake([]fakehost.Break{fakehost.ChallengeMissing})
			exits(conform(nil, "run", "--target", f.url, "--tags", "@T401-5"), 1)
			s := exits(conform(nil, "run", "--target", f.url, "--tags", "@T401-5", "--expected-failures", file), 0)
			Expect(s.Out).To(gbytes.Say(`%d passed, 1 failed \(1 tolerated\)`, selected-1))
		})

		It("fails the run when a listed scenario passes, so a stale baseline hides nothing", func() {
			file := writeFile("expected.txt", failing+"\n")
			f := serveFake(nil)
			s := exits(conform(nil, "run", "--target", f.url, "--tags", "@T401-5", "--expected-failures", file), 1)
			Expect(s.Out).To(gbytes.Say(`%d passed, 0 failed, 1 expected failures now pass`, selected))
		})

		It("is a usage error when the file cannot be read", func() {
			s := exits(conform(nil, "run", "--expected-failures", filepath.Join(home, "missing.txt")), 2)
			Expect(s.Err).To(gbytes.Say(`expected failures`))
		})
	})

	DescribeTable("refuses bad usage and bad profiles with exit 2",
		func(args func() []string, message string) {
			s := exits(conform(nil, args()...), 2)
			Expect(s.Err).To(gbytes.Say(message))
		},
		Entry("an unknown flag", func() []string { return []string{"run", "--no-such-flag"} }, `unknown flag: --no-such-flag\n`),
		Entry("a mistyped flag, naming the closest one (issue 24 item 10)", func() []string { return []string{"run", "--taget", "http://127.0.0.1:1"} },
			`unknown flag: --taget; did you mean --target\?`),
		Entry("a mistyped flag of another command", func() []string { return []string{"diagnose", "--tol=afs_read"} },
			`unknown flag: --tol; did you mean --tool\?`),
		Entry("an unknown format", func() []string { return []string{"run", "--format", "pretty,bogus"} }, `unknown format "bogus"`),
		Entry("an unreadable profile", func() []string {
			return []string{"run", "--profile", filepath.Join(home, "no-such-profile.yaml")}
		}, `read profile`),
		Entry("a profile with an unknown key", func() []string {
			return []string{"run", "--profile", writeFile("typo.yaml", "target: http://127.0.0.1:1\ncredentials_env: X\n")}
		}, `profile line 2: unknown key credentials_env; did you mean credential_env\?`),
		Entry("a profile with a value of the wrong type", func() []string {
			return []string{"run", "--profile", writeFile("type.yaml", "target: http://127.0.0.1:1\nslow: maybe\n")}
		}, "profile line 2: slow: cannot unmarshal !!str `maybe` into bool"),
		Entry("a target that is not http", func() []string { return []string{"run", "--target", "ftp://x"} }, `must be an http or https URL`),
		Entry("a relative path", func() []string {
			return []string{"run", "--profile", writeFile("rel.yaml", "target: http://127.0.0.1:1\npaths:\n  closed_dir: base\n")}
		}, `paths.closed_dir must be an absolute path`),
		Entry("an OAuth endpoint that is neither a path nor a URL", func() []string {
			return []string{"run", "--profile", writeFile("ep.yaml", "target: http://127.0.0.1:1\noauth:\n  token: token\n")}
		}, `oauth.token must be a path starting with / or an absolute http or https URL`),
		Entry("overlapping tool lists", func() []string {
			return []string{"run", "--profile", writeFile("tools.yaml", "target: http://127.0.0.1:1\ntools:\n  privileged: [afs_write, afs_stat]\n")}
		}, `tools.allowlisted and tools.privileged both name "afs_stat"`),
		// Decided before the target is asked anything: an unreachable one
		// would otherwise answer first, as the host's failure.
		// Found before the run, not after it, where it would hide the run's
		// exit code and lose its reports.
		Entry("a report under a file", func() []string {
			return []string{"run", "--target", "http://127.0.0.1:1", "--format", "pretty,junit:" + writeFile("plain", "x") + "/r.xml"}
		}, `report junit:.*/plain/r.xml cannot be written: .*not a directory`),
		Entry("a report path that is a folder", func() []string {
			return []string{"run", "--target", "http://127.0.0.1:1", "--format", "html:" + home}
		}, `report html:.* cannot be written: .*is a directory`),
		Entry("a malformed tag expression, which the feature runner would panic on", func() []string {
			return []string{"run", "--tags", "@T401-1 &&", "--target", "http://127.0.0.1:1"}
		}, `tag expression "@T401-1 &&" is malformed`),
		Entry("a malformed tag expression to list", func() []string { return []string{"list", "--tags", "@a,,@b"} }, `tag expression "@a,,@b" is malformed`),
		Entry("an unknown pack", func() []string {
			return []string{"run", "--spec", "mcp-authorisation", "--target", "http://127.0.0.1:1"}
		}, `mcp-authorisation`),
		Entry("a section no requirement comes from", func() []string {
			return []string{"run", "99.9", "--target", "http://127.0.0.1:1"}
		}, `no requirement of pack source comes from section "99.9"`),
	)

	It("takes the MCP endpoint's URL as --target, and says once that it uses the base URL", func() {
		f := serveFake(nil)
		ids := listed("--tags", "@T401-4 && ~@needs-peer")
		s := exits(conform([]string{"CONFORM_CREDENTIAL=" + f.credential}, "run", "--target", f.url+"/mcp", "--tags", "@T401-4 && ~@needs-peer"), 0)
		Expect(s.Out).To(gbytes.Say(`(?m)^%d passed, 0 failed$`, len(ids)))
		Expect(strings.Count(stderr(s), "is the MCP endpoint")).To(Equal(1))
		Expect(stderr(s)).To(ContainSubstring("--target " + f.url + "/mcp is the MCP endpoint; using its base URL " + f.url))
	})

	It("takes a profile target ending in /mcp", func() {
		f := serveFake(nil)
		file := writeFile("endpoint.yaml", "target: "+f.url+"/mcp/\n")
		s := exits(conform([]string{"CONFORM_CREDENTIAL=" + f.credential}, "run", "--profile", file, "--tags", "@T401-4 && ~@needs-peer"), 0)
		Expect(strings.Count(stderr(s), "is the MCP endpoint")).To(Equal(1))
		Expect(stderr(s)).To(ContainSubstring("target " + f.url + "/mcp/ is the MCP endpoint; using its base URL " + f.url))
	})

	It("says once, in a few lines, that a plain web server is not a tool host, and runs nothing", func() {
		web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><body>It works!</body></html>"))
		}))
		DeferCleanup(web.Close)
		s := exits(conform(nil, "run", "--target", web.URL, "--format", "pretty,junit:"+filepath.Join(home, "j.xml")), 1)
		Expect(stdout(s)).To(BeEmpty(), "no scenario ran")
		Expect(strings.Count(stderr(s), "\n")).To(BeNumerically("<=", 8), stderr(s))
		Expect(strings.Count(stderr(s), "does not answer as an agent-facing tool host")).To(Equal(1))
		Expect(s.Err).To(gbytes.Say(`sent: +POST ` + web.URL + `/mcp .*"method":"tools/list"`))
		Expect(s.Err).To(gbytes.Say(`received: +HTTP 200 with a text/html body "<html><body>It works!</body></html>"`))
		Expect(s.Err).To(gbytes.Say(`check the URL .* and ` + web.URL + `/.well-known/mcp.json`))
	})

	// A CI job uploads reports/ whatever happened: the files must say why
	// nothing ran (issue 16 item 9).
	It("still writes every report file, with one failing test case that carries the pre-flight's message", func() {
		web := httptest.NewServer(http.NotFoundHandler())
		DeferCleanup(web.Close)
		dir := filepath.Join(home, "reports")
		junit, html, cucumber := filepath.Join(dir, "c.xml"), filepath.Join(dir, "c.html"), filepath.Join(dir, "c.json")
		s := exits(conform(nil, "run", "--target", web.URL, "--format", "pretty,junit:"+junit+",html:"+html+",cucumber:"+cucumber), 1)
		Expect(stdout(s)).To(BeEmpty(), "the message is on stderr; no report is printed")

		raw, err := os.ReadFile(junit)
		Expect(err).NotTo(HaveOccurred())
		var suites struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Suites   []struct {
				Cases []struct {
					Failure struct {
						Message string `xml:"message,attr"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		Expect(xml.Unmarshal(raw, &suites)).To(Succeed())
		Expect(suites.Tests).To(Equal(1))
		Expect(suites.Failures).To(Equal(1))
		Expect(suites.Suites[0].Cases[0].Failure.Message).To(ContainSubstring("does not answer as an agent-facing tool host"))
		for _, file := range []string{html, cucumber} {
			raw, err := os.ReadFile(file)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(raw)).To(ContainSubstring("does not answer as an agent-facing tool host"), file)
		}
	})

	It("writes a stop for the user's set-up (a credential refused, exit 2) as not run, never as the host's failure", func() {
		f := serveFake(nil)
		out := filepath.Join(home, "reports", "refused.json")
		exits(conform([]string{"CONFORM_CREDENTIAL=conform-bogus-credential"}, "run", "--target", f.url, "--format", "json:"+out), 2)
		raw, err := os.ReadFile(out)
		Expect(err).NotTo(HaveOccurred())
		var doc struct {
			ExitCode  int `json:"exit_code"`
			Scenarios []struct {
				Outcome  string `json:"outcome"`
				FailsRun bool   `json:"fails_run"`
				Reason   string `json:"reason"`
			} `json:"scenarios"`
		}
		Expect(json.Unmarshal(raw, &doc)).To(Succeed())
		Expect(doc.Scenarios).To(HaveLen(1))
		Expect(doc.Scenarios[0].Outcome).To(Equal("not_run"))
		Expect(doc.Scenarios[0].FailsRun).To(BeFalse())
		Expect(doc.Scenarios[0].Reason).To(HavePrefix("usage error: "))
		Expect(doc.ExitCode).NotTo(Equal(1))
	})

	It("tries no sign-in against a target that is not a tool host", func() {
		web := httptest.NewServer(http.NotFoundHandler())
		DeferCleanup(web.Close)
		marker := filepath.Join(home, "approval-ran")
		file := writeFile("signin.yaml", fmt.Sprintf("target: %s\noauth:\n  device_approval_command: \"touch %s\"\n", web.URL, marker))
		s := exits(conform(nil, "run", "--profile", file), 1)
		Expect(s.Err).To(gbytes.Say(`does not answer as an agent-facing tool host`))
		Expect(stderr(s)).NotTo(ContainSubstring("sign in"))
		Expect(marker).NotTo(BeAnExistingFile())
	})

	Context("with a credential the target refuses", func() {
		It("is a usage error that names the variable and conform login, not a dozen departures", func() {
			f := serveFake(nil)
			s := exits(conform([]string{credentialEnv + "=not-a-credential-this-host-issued"}, "run", "--profile", profileFor(f)), 2)
			Expect(stdout(s)).To(BeEmpty(), "no scenario ran")
			Expect(s.Err).To(gbytes.Say("conform: the credential in " + credentialEnv + " is refused by the target " + f.url + `/mcp \(HTTP 401`))
			Expect(s.Err).To(gbytes.Say("sign in again with `conform login --target " + f.url + "` and leave " + credentialEnv + " empty"))
			Expect(stderr(s)).NotTo(ContainSubstring("not-a-credential-this-host-issued"))
		})

		It("is a usage error when the peer refuses the peer's credential", func() {
			f, peer := serveFake(nil), serveFake(nil)
			file := writeFile("peer.yaml", fmt.Sprintf("target: %s\npeer:\n  target: %s\n  credential_env: PEER_TOKEN\n", f.url, peer.url))
			s := exits(conform([]string{"PEER_TOKEN=" + f.credential}, "run", "--profile", file), 2)
			Expect(s.Err).To(gbytes.Say("conform: the credential in PEER_TOKEN is refused by the peer " + peer.url))

			// The peer's own credential: the run goes on (and the target
			// refusing it is what the peer scenarios check).
			s = exits(conform([]string{"PEER_TOKEN=" + peer.credential}, "run", "--profile", file, "--tags", "@needs-peer && ~@needs-credential"), 0)
			Expect(s.Out).To(gbytes.Say(`(?m)^[1-9]\d* passed, 0 failed$`))
		})
	})

	It("says within seconds that a target on a closed port is unreachable", func() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		addr := ln.Addr().String()
		Expect(ln.Close()).To(Succeed())

		start := time.Now()
		s := conform(nil, "run", "--target", "http://"+addr)
		Eventually(s, 10*time.Second).Should(gexec.Exit(1))
		Expect(time.Since(start)).To(BeNumerically("<", 10*time.Second))
		Expect(s.Err).To(gbytes.Say(`target http://` + addr + ` is unreachable`))
	})

	It("says a target that accepts connections but never answers did not answer within --timeout (issue 24 item 10)", func() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(ln.Close)
		go func() {
			// Accepted and held open, never answered.
			var held []net.Conn
			for {
				c, err := ln.Accept()
				if err != nil {
					for _, c := range held {
						c.Close()
					}
					return
				}
				held = append(held, c)
			}
		}()
		s := exits(conform(nil, "run", "--target", "http://"+ln.Addr().String(), "--timeout", "1s"), 1)
		Expect(stderr(s)).To(ContainSubstring("target http://" + ln.Addr().String() + " did not answer within 1s"))
		Expect(stderr(s)).NotTo(ContainSubstring("unreachable"))
	})
})

var _ = Describe("an empty credential variable (issue 16 item 8)", func() {
	It("is warned about once, before anything is sent", func() {
		profile := writeFile("peer.yaml", "target: http://127.0.0.1:1\npeer:\n  target: http://127.0.0.1:2\n  credential_env: PEER_CREDENTIAL\n")
		s := exits(conform([]string{"CONFORM_CREDENTIAL=", "PEER_CREDENTIAL="}, "run", "--profile", profile), 1)
		stderr := string(s.Err.Contents())
		Expect(strings.Count(stderr, "credential_env names CONFORM_CREDENTIAL, which is set but empty")).To(Equal(1))
		Expect(strings.Count(stderr, "peer.credential_env names PEER_CREDENTIAL, which is set but empty")).To(Equal(1))
		Expect(strings.Index(stderr, "set but empty")).To(BeNumerically("<", strings.Index(stderr, "unreachable")))
	})

	It("is not warned about when the variable is not set at all", func() {
		s := exits(conform(nil, "run", "--target", "http://127.0.0.1:1"), 1)
		Expect(string(s.Err.Contents())).NotTo(ContainSubstring("set but empty"))
	})
})
