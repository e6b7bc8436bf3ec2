package oauth_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/oauth2"

	"github.com/conform-mcp/conform/impl/clock"
	"github.com/conform-mcp/conform/impl/oauth"
)

// These specs drive the server with golang.org/x/oauth2, the client the
// ecosystem uses (and `conform login` uses), to show the wire format
// interoperates. The device flow polls in real time, so its host runs on the
// wall clock.
var _ = Describe("Interoperability with golang.org/x/oauth2", func() {
	endpoint := func(h *host) oauth2.Endpoint {
		return oauth2.Endpoint{
			DeviceAuthURL: h.url("/oauth/device_authorization"),
			AuthURL:       h.url("/oauth/authorize"),
			TokenURL:      h.url("/oauth/token"),
			AuthStyle:     oauth2.AuthStyleInParams,
		}
	}

	It("completes the device flow: pending, approved, credential", func(sctx SpecContext) {
		h := newHost(oauth.Options{Clock: clock.System{}})
		var polls atomic.Int32
		inner := h.http.Config.Handler
		h.http.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/oauth/token" {
				polls.Add(1)
			}
			inner.ServeHTTP(w, r)
		})
		cfg := &oauth2.Config{ClientID: h.register(), Endpoint: endpoint(h)}

		da, err := cfg.DeviceAuth(sctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(da.UserCode).To(MatchRegexp(`^[A-Z]{4}-[A-Z]{4}$`))
		Expect(da.VerificationURI).To(Equal(h.url("/oauth/device")))
		Expect(da.Interval).To(BeEquivalentTo(5))

		type result struct {
			tok *oauth2.Token
			err error
		}
		done := make(chan result, 1)
		go func() {
			tok, err := cfg.DeviceAccessToken(sctx, da)
			done <- result{tok, err}
		}()

		By("approving only after the client has been told authorization_pending")
		Eventually(polls.Load).WithTimeout(15 * time.Second).Should(BeNumerically(">=", 1))
		Expect(h.decide(da.UserCode, "owner", "approve").status).To(Equal(http.StatusOK))

		var got result
		Eventually(done).WithTimeout(20 * time.Second).Should(Receive(&got))
		Expect(got.err).NotTo(HaveOccurred())
		Expect(got.tok.TokenType).To(Equal("Bearer"))
		Expect(got.tok.RefreshToken).To(BeEmpty())
		Expect(got.tok.Expiry.IsZero()).To(BeTrue())
		c, err := h.server.Verify(sctx, got.tok.AccessToken)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Role).To(Equal("owner"))
	}, SpecTimeout(45*time.Second))

	It("completes the authorization code flow with PKCE and refreshes", func() {
		h := newHost()
		redirect := "http://127.0.0.1:49152/cb"
		cfg := &oauth2.Config{ClientID: h.register("http://127.0.0.1/cb"), Endpoint: endpoint(h), RedirectURL: redirect}
		verifier := oauth2.GenerateVerifier()
		authURL, err := url.Parse(cfg.AuthCodeURL("st4te", oauth2.S256ChallengeOption(verifier)))
		Expect(err).NotTo(HaveOccurred())

		page := h.get(authURL.RequestURI())
		Expect(page.status).To(Equal(http.StatusOK), page.body)
		form := url.Values{"role": {"member"}, "action": {"approve"}}
		for _, m := range hiddenField.FindAllStringSubmatch(page.body, -1) {
			form.Set(m[1], html.UnescapeString(m[2]))
		}
		back, err := url.Parse(h.postForm("/oauth/authorize", form).header.Get("Location"))
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Query().Get("state")).To(Equal("st4te"))

		ctx := context.Background()
		tok, err := cfg.Exchange(ctx, back.Query().Get("code"), oauth2.VerifierOption(verifier))
		Expect(err).NotTo(HaveOccurred())
		Expect(tok.RefreshToken).NotTo(BeEmpty())

		By("refreshing through a token source once the credential has expired")
		h.clock.Advance(2 * time.Hour)
		tok.Expiry = time.Now().Add(-time.Minute)
		fresh, err := cfg.TokenSource(ctx, tok).Token()
		Expect(err).NotTo(HaveOccurred())
		Expect(fresh.AccessToken).NotTo(Equal(tok.AccessToken))
		c, err := h.server.Verify(ctx, fresh.AccessToken)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Role).To(Equal("member"))
	})
})
