package main_test

import (
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// The client half through the command line: conform plays the servers and
// runs the user's client, here the harness's reference client and one of its
// breaks, whose verdicts the client half's own tests prove in full.
var _ = Describe("conform run --client", func() {
	var fakeclient string
	BeforeEach(func() {
		var err error
		fakeclient, err = gexec.Build("github.com/conform-mcp/conform/harness/fakeclient/cmd/fakeclient")
		Expect(err).NotTo(HaveOccurred())
	})
	command := func(extra string) string {
		return fakeclient + " -pack source -url {url} -state {state_dir} -tool {tool} -args {args}" + extra
	}

	It("judges a client that keeps the source document's client rules as passing them all", func() {
		s := exits(conform(nil, "run", "--client", command(""), "--format", "pretty"), 0)
		Expect(stdout(s)).To(ContainSubstring("conform run of the client half of pack source against the client"))
		Expect(stdout(s)).To(ContainSubstring("6 passed, 0 failed"))
		Expect(stderr(s)).To(ContainSubstring("conform plays the servers"))
	})

	It("fails exactly the rule a client breaks, naming it, a SHOULD deciding the exit code only with --strict", func() {
		s := exits(conform(nil, "run", "--client", command(" -break is-error-ignored"), "--format", "pretty"), 0)
		Expect(stdout(s)).To(ContainSubstring("CLI-17  SHOULD  1 scenario, tolerated"))
		Expect(stdout(s)).To(ContainSubstring("no failure counts against the client"))
		Expect(stdout(s)).To(ContainSubstring("5 passed, 1 failed (1 tolerated)"))
		s = exits(conform(nil, "run", "--strict", "--client", command(" -break is-error-ignored"), "--format", "pretty"), 1)
		Expect(stdout(s)).To(ContainSubstring("1 failure counts against the client"))
	})

	It("writes with -v every request the client sends and every run of it as each completes, credentials masked", func() {
		s := exits(conform(nil, "run", "-v", "--client", command(""), "--format", "progress"), 0)
		Expect(stderr(s)).To(MatchRegexp(`> POST http://127\.0\.0\.1:\d+/oauth/device_authorization\n`))
		Expect(stderr(s)).To(ContainSubstring(`< {"access_token":"****","token_type":"Bearer"}`))
		Expect(stderr(s)).To(ContainSubstring("> Authorization: Bearer ****\n"))
		Expect(stderr(s)).To(ContainSubstring("> RUN sh -c '" + fakeclient))
		Expect(stderr(s)).To(ContainSubstring("< exit status 0\n"))
		Expect(stderr(s)).NotTo(ContainSubstring("HTTP 0"))
		Expect(stdout(s)).To(ContainSubstring("6 passed, 0 failed"))
	})

	It("leaves what needs a tool call not run when no command names {tool}", func() {
		s := exits(conform(nil, "run", "--client", fakeclient+" -pack source -url {url} -state {state_dir}", "--format", "progress"), 3)
		Expect(stdout(s)).To(ContainSubstring("neither client command names {tool}"))
	})

	It("runs the client a profile's client: block names, with its tool command", func() {
		profile := filepath.Join(GinkgoT().TempDir(), "client.yaml")
		Expect(os.WriteFile(profile, []byte("client:\n  command: "+fakeclient+" -pack source -url {url} -state {state_dir}\n  tool_command: "+command("")+"\n  timeout: 30s\n"), 0o600)).To(Succeed())
		s := exits(conform(nil, "run", "--profile", profile, "--format", "progress"), 0)
		Expect(stdout(s)).To(ContainSubstring("6 passed, 0 failed"))
	})

	It("lists the client half's scenarios with list --client, apart from the server half's", func() {
		ids := listed("--client", "--spec", "mcp-authorization")
		Expect(ids).To(ContainElement(ContainSubstring("The client uses PKCE with S256")))
		Expect(listed("--spec", "mcp-authorization")).NotTo(ContainElement(ContainSubstring("The client uses PKCE with S256")))
	})

	It("tells the scripted authorization servers of a client registered beforehand, and refuses one the source pack has no use for", func() {
		dir := GinkgoT().TempDir()
		profile := filepath.Join(dir, "client.yaml")
		cmd := fakeclient + " -url {url} -state {state_dir} -tool {tool} -args {args} -client-id static-one -client-secret s3cr3t-value"
		Expect(os.WriteFile(profile, []byte("client:\n  command: "+cmd+"\n  client_id: static-one\n  client_secret_env: STATIC_SECRET\n"), 0o600)).To(Succeed())
		s := exits(conform([]string{"STATIC_SECRET=s3cr3t-value"}, "run", "--spec", "mcp-authorization", "--profile", profile, "--format", "progress"), 0)
		Expect(stdout(s)).To(ContainSubstring("0 failed"))
		Expect(stdout(s)).To(ContainSubstring("not applicable: the client did not register dynamically"))
		s = exits(conform(nil, "run", "--spec", "mcp-authorization", "--profile", profile), 2)
		Expect(stderr(s)).To(ContainSubstring("STATIC_SECRET is not set"))
		s = exits(conform([]string{"STATIC_SECRET=s3cr3t-value"}, "run", "--profile", profile), 2)
		Expect(stderr(s)).To(ContainSubstring("registers itself (source 7.3)"))
	})

	It("judges a client that names itself by the client ID metadata document its profile names, and refuses one the source pack has no use for", func() {
		var docURL string
		doc := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"client_id":%q,"client_name":"fakeclient","redirect_uris":["http://127.0.0.1/callback"]}`, docURL)
		}))
		DeferCleanup(doc.Close)
		docURL = doc.URL + "/oauth/client.json"
		dir := GinkgoT().TempDir()
		// conform fetches the document as any https URL, trusting the
		// roots SSL_CERT_FILE names: here the test server's own.
		certs := filepath.Join(dir, "certs.pem")
		Expect(os.WriteFile(certs, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: doc.Certificate().Raw}), 0o600)).To(Succeed())
		profile := filepath.Join(dir, "client.yaml")
		cmd := fakeclient + " -url {url} -state {state_dir} -tool {tool} -args {args} -client-metadata-url " + docURL
		Expect(os.WriteFile(profile, []byte("client:\n  command: "+cmd+"\n  client_metadata_url: "+docURL+"\n"), 0o600)).To(Succeed())
		s := exits(conform([]string{"SSL_CERT_FILE=" + certs}, "run", "--spec", "mcp-authorization", "--profile", profile, "--format", "pretty"), 0)
		Expect(stdout(s)).To(ContainSubstring("0 failed"))
		Expect(stdout(s)).NotTo(ContainSubstring("could not be fetched"))
		for _, id := range []string{"CLI-32", "CLI-33", "CLI-34", "CLI-35"} {
			Expect(stdout(s)).To(MatchRegexp(`✓ .*\[`+id+`\]`), id)
		}
		s = exits(conform(nil, "run", "--profile", profile), 2)
		Expect(stderr(s)).To(ContainSubstring("client.client_metadata_url: the source pack's client registers itself"))
	})

	It("takes a command without {url}, or beside --target, as the user's mistake", func() {
		s := exits(conform(nil, "run", "--client", "true"), 2)
		Expect(stderr(s)).To(ContainSubstring("names no {url}"))
		s = exits(conform(nil, "run", "--client", command(""), "--target", "http://127.0.0.1:9/mcp"), 2)
		Expect(stderr(s)).To(ContainSubstring("give one of them"))
	})
})
