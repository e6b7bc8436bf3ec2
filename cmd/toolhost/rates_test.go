package main_test

import (
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
)

// registerClient sends one registration and returns the status and
// Retry-After of the reply.
func registerClient(base string) (int, string) {
	GinkgoHelper()
	resp, err := http.Post(base+"/oauth/register", "application/json",
		strings.NewReader(`{"client_name":"rates test","redirect_uris":["http://127.0.0.1/cb"]}`))
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

var _ = Describe("toolhost serve's rate limits (issue 16 item 2)", func() {
	It("takes the registration limit from its flags (source 7.3, 8)", func() {
		s := start(toolhostPath, "serve", "--addr", "127.0.0.1:0", "--data", GinkgoT().TempDir(),
			"--registration-burst", "2", "--registration-every", "1h")
		DeferCleanup(func() { s.Terminate().Wait(10 * time.Second) })
		Eventually(s.Out, 10*time.Second).Should(gbytes.Say(`toolhost serving`))
		base := regexpGroup(`toolhost serving (http://\S+)/mcp`, string(s.Out.Contents()))

		for range 2 {
			status, _ := registerClient(base)
			Expect(status).To(Equal(http.StatusCreated))
		}
		status, retry := registerClient(base)
		Expect(status).To(Equal(http.StatusTooManyRequests))
		Expect(retry).To(Equal("3600"))
	})

	It("refuses a negative limit before it listens", func() {
		s := exits(start(toolhostPath, "serve", "--addr", "127.0.0.1:0", "--data", GinkgoT().TempDir(), "--registration-every", "-1s"), 1)
		Expect(string(s.Err.Contents())).To(ContainSubstring("rate_limits.registration_every -1s: must be positive"))
	})
})

var _ = Describe("the suite run twice in a row against one toolhost (issue 16 item 2)", func() {
	It("gives the same result both times when the registration allowance refills quickly", func() {
		s := start(toolhostPath, "serve", "--addr", "127.0.0.1:0", "--data", GinkgoT().TempDir(), "--registration-every", "200ms")
		DeferCleanup(func() { s.Terminate().Wait(10 * time.Second) })
		Eventually(s.Out, 10*time.Second).Should(gbytes.Say(`toolhost serving`))
		base := regexpGroup(`toolhost serving (http://\S+)/mcp`, string(s.Out.Contents()))

		summary := func() string {
			run := exits(start(conformPath, "run", "--target", base, "--format", "progress"), 3)
			lines := strings.Split(strings.TrimSpace(string(run.Out.Contents())), "\n")
			return lines[len(lines)-1]
		}
		first := summary()
		Expect(first).To(MatchRegexp(`^\d+ passed, 0 failed, \d+ not run$`))
		Expect(summary()).To(Equal(first))
	})
})
