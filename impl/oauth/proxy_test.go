package oauth_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"

	"github.com/conform-mcp/conform/impl/clientaddr"
	"github.com/conform-mcp/conform/impl/oauth"
)

// Behind a reverse proxy every connection comes from the proxy: the limits
// must key on the client the proxy forwards, or a few wrong tries lock out
// everyone, the owner included.
var _ = Describe("The limits behind a trusted reverse proxy", func() {
	var (
		h   *host
		log *gbytes.Buffer
	)
	BeforeEach(func() {
		proxies, err := clientaddr.New([]string{"127.0.0.1", "::1"})
		Expect(err).NotTo(HaveOccurred())
		log = gbytes.NewBuffer()
		h = newHost(oauth.Options{ClientAddr: proxies, Logger: slog.New(slog.NewTextHandler(log, nil))})
	})

	// wrongSignIn posts a wrong owner secret as the client the proxy says.
	wrongSignIn := func(client string) reply {
		req, err := http.NewRequest(http.MethodPost, h.url("/oauth/login"), strings.NewReader(
			url.Values{"secret": {"not-the-owner-secret-but-long-enough-0123"}}.Encode()))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", client)
		return do(req)
	}

	It("throttles the client that got the secret wrong, not the others behind the proxy", func() {
		for range 10 {
			Expect(wrongSignIn("203.0.113.1").status).To(Equal(http.StatusForbidden))
		}
		Expect(wrongSignIn("203.0.113.1").status).To(Equal(http.StatusTooManyRequests))
		Expect(wrongSignIn("198.51.100.1, 203.0.113.1").status).To(Equal(http.StatusTooManyRequests),
			"an address the client wrote before its own changes nothing")
		Expect(wrongSignIn("203.0.113.2").status).To(Equal(http.StatusForbidden))
	})

	It("logs a failed owner sign-in with the client's address", func() {
		wrongSignIn("203.0.113.7")
		Eventually(log).Should(gbytes.Say(`owner sign-in failed: wrong owner secret.*peer=203\.0\.113\.7`))
	})

	// Issue 26 item 3: the log of failed sign-ins cannot fill the disk,
	// however many addresses the guesses come from.
	It("logs failed sign-ins from many addresses at a bounded rate, and says how many it left out", func() {
		for i := range 30 {
			Expect(wrongSignIn(fmt.Sprintf("203.0.113.%d", i+1)).status).To(Equal(http.StatusForbidden))
		}
		Expect(strings.Count(string(log.Contents()), "owner sign-in failed")).To(Equal(10))
		h.clock.Advance(time.Minute)
		Expect(wrongSignIn("198.51.100.1").status).To(Equal(http.StatusForbidden))
		Expect(log).To(gbytes.Say(`owner sign-in failed: wrong owner secret.*peer=198\.51\.100\.1 not_logged_since_last=20`))
	})
})
