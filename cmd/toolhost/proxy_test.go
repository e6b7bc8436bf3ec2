package main_test

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
)

var _ = Describe("toolhost serve --trusted-proxy", func() {
	// wrongSignIn posts a wrong owner secret as the client a proxy names.
	wrongSignIn := func(base, client string) int {
		GinkgoHelper()
		req, err := http.NewRequest(http.MethodPost, base+"/oauth/login",
			strings.NewReader(url.Values{"secret": {"not-the-owner-secret-but-long-enough-0123"}}.Encode()))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", client)
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		return resp.StatusCode
	}

	It("keys the limits on the client the proxy forwards, so one client's wrong tries lock out no other", func() {
		s := start(toolhostPath, "serve", "--addr", "127.0.0.1:0", "--data", GinkgoT().TempDir(), "--trusted-proxy", "127.0.0.1")
		DeferCleanup(func() { s.Terminate().Wait(10 * time.Second) })
		Eventually(s.Out, 10*time.Second).Should(gbytes.Say(`toolhost serving`))
		base := regexpGroup(`toolhost serving (\S+)/mcp`, string(s.Out.Contents()))
		for range 10 {
			Expect(wrongSignIn(base, "203.0.113.1")).To(Equal(http.StatusForbidden))
		}
		Expect(wrongSignIn(base, "203.0.113.1")).To(Equal(http.StatusTooManyRequests))
		Expect(wrongSignIn(base, "203.0.113.2")).To(Equal(http.StatusForbidden))
	})

	It("refuses a proxy that is neither an address nor a prefix", func() {
		s := exits(start(toolhostPath, "serve", "--addr", "127.0.0.1:0", "--data", GinkgoT().TempDir(), "--trusted-proxy", "proxy.example"), 1)
		Expect(s.Err).To(gbytes.Say(`trusted proxy "proxy.example": must be an IP address or a CIDR prefix`))
	})
})
