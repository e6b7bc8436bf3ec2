package main_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"

	"github.com/conform-mcp/conform/harness/wire"
)

var _ = Describe("conform run's connection flags", func() {
	// gateway stands in front of a fake host and lets through only
	// requests that carry its key, as an API gateway does.
	gateway := func(f fake) string {
		backend, err := url.Parse(f.url)
		Expect(err).NotTo(HaveOccurred())
		proxy := httputil.NewSingleHostReverseProxy(backend)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Gateway-Key") != "k-123" {
				http.Error(w, "no gateway key", http.StatusForbidden)
				return
			}
			proxy.ServeHTTP(w, r)
		}))
		DeferCleanup(srv.Close)
		return srv.URL
	}
	const tags = "@T401-4 && ~@needs-peer"

	It("sends --header with every request, so a host behind a gateway can be judged", func() {
		f := serveFake(nil)
		url := gateway(f)
		ids := listed("--tags", tags)
		s := exits(conform([]string{"CONFORM_CREDENTIAL=" + f.credential}, "run", "--target", url, "--tags", tags, "--header", "X-Gateway-Key: k-123"), 0)
		Expect(s.Out).To(gbytes.Say(`(?m)^%d passed, 0 failed$`, len(ids)))

		// Without it the gateway answers, not the host: no tool host there.
		exits(conform([]string{"CONFORM_CREDENTIAL=" + f.credential}, "run", "--target", url, "--tags", tags), 1)
	})

	It("lets conform diagnose through the gateway with the same --header", func() {
		f := serveFake(nil)
		url := gateway(f)
		args := []string{"diagnose", "--target", url, "--tool", "afs_read", "--path", "/public/readme.md", "--anonymous"}
		exits(conform(nil, append(args, "-H", "X-Gateway-Key: k-123")...), 0)
		exits(conform(nil, args...), 1)

		By("printing remedies whose command carries the header, its value masked")
		s := exits(conform(nil, "diagnose", "--target", url, "--tool", "afs_write", "--path", "/overlay/scratch.txt", "--anonymous",
			"-H", "X-Gateway-Key: k-123", "--insecure"), 1)
		Expect(stdout(s)).To(ContainSubstring("--header 'X-Gateway-Key: " + wire.Masked + "' --insecure"))
		Expect(stdout(s)).NotTo(ContainSubstring("k-123"))
	})

	It("prints every exchange with -v, the credential masked", func() {
		f := serveFake(nil)
		s := exits(conform([]string{"CONFORM_CREDENTIAL=" + f.credential}, "run", "--target", f.url, "--tags", tags, "-v"), 0)
		Expect(stderr(s)).To(ContainSubstring("POST " + f.url + "/mcp"))
		Expect(stderr(s)).To(ContainSubstring("Authorization: Bearer"))
		Expect(stderr(s)).NotTo(ContainSubstring(f.credential))
	})

	It("prints the --header headers too with -v, their values masked (issue 24 item 5)", func() {
		f := serveFake(nil)
		url := gateway(f)
		s := exits(conform([]string{"CONFORM_CREDENTIAL=" + f.credential}, "run", "--target", url, "--tags", tags, "-H", "X-Gateway-Key: k-123", "-v"), 0)
		Expect(stderr(s)).To(ContainSubstring("> X-Gateway-Key: " + wire.Masked + "\n"))
		Expect(stderr(s)).NotTo(ContainSubstring("k-123"))
	})

	It("warns once that --insecure verifies no certificate", func() {
		f := serveFake(nil)
		s := exits(conform([]string{"CONFORM_CREDENTIAL=" + f.credential}, "run", "--target", f.url, "--tags", tags, "--insecure"), 0)
		Expect(strings.Count(stderr(s), "--insecure: the target's TLS certificate is not verified")).To(Equal(1))
	})

	DescribeTable("refuses a malformed flag before sending anything, with exit 2",
		func(flag, value, message string) {
			s := exits(conform(nil, "run", "--target", "http://127.0.0.1:1", flag, value), 2)
			Expect(stderr(s)).To(ContainSubstring(message))
		},
		Entry("a header without a colon", "--header", "X-Key k", "'Name: value'"),
		Entry("a timeout of zero", "--timeout", "0s", "give a positive duration"),
	)

	It("completes --spec, --format and the sections of the chosen pack", func() {
		s := exits(conform(nil, "__complete", "run", "--spec", ""), 0)
		Expect(stdout(s)).To(ContainSubstring("mcp-authorization"))
		s = exits(conform(nil, "__complete", "run", "--format", ""), 0)
		Expect(stdout(s)).To(ContainSubstring("junit:"))
		s = exits(conform(nil, "__complete", "run", "--format", "pretty,"), 0)
		Expect(stdout(s)).To(ContainSubstring("pretty,progress\n"), "after a comma (issue 24 item 10)")
		Expect(stdout(s)).To(ContainSubstring("pretty,junit:\n"))
		Expect(stdout(s)).NotTo(ContainSubstring("pretty,pretty"), "pretty is taken once")
		s = exits(conform(nil, "__complete", "run", "--format", "progress,h"), 0)
		Expect(stdout(s)).To(HavePrefix("progress,html:\n"))
		s = exits(conform(nil, "__complete", "run", "--spec", "mcp-authorization", "disc"), 0)
		Expect(stdout(s)).To(ContainSubstring("discovery"))
		s = exits(conform(nil, "completion", "bash"), 0)
		Expect(stdout(s)).To(ContainSubstring("__start_conform"))
	})
})
