package oauth_test

import (
	"net/http"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Only the owner approves a sign-in (RFC 8628 section 5, RFC 9700): every
// consent page asks for the owner secret first, the session lives in an
// HttpOnly SameSite=Strict cookie, each form is bound to the session and
// accepted once, and cross-site posts are refused. These specs speak plain
// HTTP, as curl would.
var _ = Describe("The owner's sign-in in front of the consent pages", func() {
	var (
		h *host
		d deviceStart
	)
	BeforeEach(func() {
		h = newHost()
		d = h.startDevice(h.register())
	})

	pending := func() {
		GinkgoHelper()
		expectOAuthError(h.poll(d), http.StatusBadRequest, "authorization_pending", "")
	}

	It("fails a curl-only self-approval: no form without the owner secret, no decision without a session", func() {
		page := h.anonGet("/oauth/device?user_code=" + d.userCode)
		Expect(page.status).To(Equal(http.StatusOK))
		Expect(page.body).To(ContainSubstring(`id="owner_secret"`))
		Expect(page.body).NotTo(ContainSubstring(`name="csrf"`))
		Expect(page.body).NotTo(ContainSubstring(`id="approve"`))
		Expect(page.header.Get("Content-Security-Policy")).To(ContainSubstring("frame-ancestors 'none'"))
		Expect(page.header.Get("X-Frame-Options")).To(Equal("DENY"))

		for _, csrf := range []string{"", "forged", h.csrfFor(d.userCode)} {
			r := h.anonPostForm("/oauth/device", url.Values{"user_code": {d.userCode}, "role": {"owner"},
				"action": {"approve"}, "csrf": {csrf}})
			Expect(r.status).To(Equal(http.StatusForbidden), "csrf %q", csrf)
		}
		pending()
	})

	It("refuses a wrong owner secret and starts no session", func() {
		browser := newBrowser()
		r := h.login(browser, "not-the-owner-secret-but-long-enough-0123", "/oauth/device")
		Expect(r.status).To(Equal(http.StatusForbidden))
		Expect(r.header.Values("Set-Cookie")).To(BeEmpty())
		Expect(r.body).To(ContainSubstring(`id="owner_secret"`))
	})

	It("keeps the session in an HttpOnly, SameSite=Strict cookie and returns only to a consent page", func() {
		browser := newBrowser()
		r := h.login(browser, ownerSecret, "/oauth/device?user_code="+d.userCode)
		Expect(r.status).To(Equal(http.StatusSeeOther))
		Expect(r.header.Get("Location")).To(Equal("/oauth/device?user_code=" + d.userCode))
		cookie := r.header.Get("Set-Cookie")
		Expect(cookie).To(HavePrefix("toolhost_owner_" + h.http.URL[strings.LastIndex(h.http.URL, ":")+1:] + "="))
		Expect(cookie).To(ContainSubstring("HttpOnly"))
		Expect(cookie).To(ContainSubstring("SameSite=Strict"))
		Expect(cookie).To(ContainSubstring("Path=/oauth"))

		for _, elsewhere := range []string{"https://attacker.example/", "//attacker.example/oauth/device", "/mcp"} {
			r = h.login(newBrowser(), ownerSecret, elsewhere)
			Expect(r.header.Get("Location")).To(Equal("/oauth/device"), elsewhere)
		}
	})

	It("keeps the sessions of two hosts on one name apart: cookies do not keep ports apart (RFC 6265 section 8.5)", func() {
		other := newHost()
		browser := newBrowser()
		Expect(h.login(browser, ownerSecret, "/oauth/device").status).To(Equal(http.StatusSeeOther))
		Expect(other.login(browser, ownerSecret, "/oauth/device").status).To(Equal(http.StatusSeeOther))
		for _, x := range []*host{h, other} {
			req, err := http.NewRequest(http.MethodGet, x.url("/oauth/device"), nil)
			Expect(err).NotTo(HaveOccurred())
			r := doWith(browser, req)
			Expect(r.body).To(ContainSubstring(`id="user_code"`), "still signed in on %s", x.http.URL)
		}
	})

	It("binds a form to the session that opened it", func() {
		stolen := h.csrfFor(d.userCode)
		other := newBrowser()
		Expect(h.login(other, ownerSecret, "/oauth/device").status).To(Equal(http.StatusSeeOther))
		req, err := http.NewRequest(http.MethodPost, h.url("/oauth/device"), strings.NewReader(url.Values{
			"user_code": {d.userCode}, "role": {"owner"}, "action": {"approve"}, "csrf": {stolen}}.Encode()))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		Expect(doWith(other, req).status).To(Equal(http.StatusForbidden))
		pending()
	})

	DescribeTable("refuses a cross-site approval even with a session and a good form",
		func(header, value string) {
			form := url.Values{"user_code": {d.userCode}, "role": {"owner"}, "action": {"approve"},
				"csrf": {h.csrfFor(d.userCode)}}
			req, err := http.NewRequest(http.MethodPost, h.url("/oauth/device"), strings.NewReader(form.Encode()))
			Expect(err).NotTo(HaveOccurred())
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set(header, value)
			r := doWith(h.browser, req)
			Expect(r.status).To(Equal(http.StatusForbidden))
			Expect(r.body).To(ContainSubstring("another site"))
			pending()
		},
		Entry("Sec-Fetch-Site: cross-site", "Sec-Fetch-Site", "cross-site"),
		Entry("Sec-Fetch-Site: same-site", "Sec-Fetch-Site", "same-site"),
		Entry("a foreign Origin", "Origin", "https://attacker.example"),
		Entry("Origin: null without Sec-Fetch-Site", "Origin", "null"),
	)

	It("accepts a same-origin browser post", func() {
		form := url.Values{"user_code": {d.userCode}, "role": {"member"}, "action": {"approve"},
			"csrf": {h.csrfFor(d.userCode)}}
		req, err := http.NewRequest(http.MethodPost, h.url("/oauth/device"), strings.NewReader(form.Encode()))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("Origin", "null")
		Expect(doWith(h.browser, req).status).To(Equal(http.StatusOK))
		Expect(h.poll(d).str("scope")).To(Equal("afs:read afs:write"))
	})

	// An older browser sends only Origin; it is judged as the MCP endpoint's
	// Origin check judges it (origin.Same), with scheme and host in any case.
	It("accepts a post whose only Origin names this host in upper case", func() {
		form := url.Values{"user_code": {d.userCode}, "role": {"member"}, "action": {"approve"},
			"csrf": {h.csrfFor(d.userCode)}}
		req, err := http.NewRequest(http.MethodPost, h.url("/oauth/device"), strings.NewReader(form.Encode()))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", strings.ToUpper(h.url("")))
		Expect(doWith(h.browser, req).status).To(Equal(http.StatusOK))
		Expect(h.poll(d).str("scope")).To(Equal("afs:read afs:write"))
	})

	It("meets a code-guessing loop with 429 within 20 tries (RFC 8628 section 5.1)", func() {
		throttledAt := 0
		for i := 1; i <= 20 && throttledAt == 0; i++ {
			r := h.anonGet("/oauth/device?user_code=BCDF-" + []string{"GHJK", "GHJL", "GHJM", "GHJN"}[i%4])
			if r.status == http.StatusTooManyRequests {
				throttledAt = i
				Expect(r.header.Get("Retry-After")).NotTo(BeEmpty())
			}
		}
		Expect(throttledAt).To(BeNumerically(">", 0), "never throttled")
		Expect(throttledAt).To(BeNumerically("<=", 20))
		By("throttling the address's anonymous requests and wrong secrets")
		Expect(h.anonPostForm("/oauth/device", url.Values{"user_code": {d.userCode}}).status).To(Equal(http.StatusTooManyRequests))
		Expect(h.login(newBrowser(), "not-the-owner-secret-but-long-enough-0123", "/oauth/device").status).
			To(Equal(http.StatusTooManyRequests))
		By("never refusing the owner: not the correct secret, not the signed-in session")
		owner := newBrowser()
		Expect(h.login(owner, ownerSecret, "/oauth/device?user_code="+d.userCode).status).To(Equal(http.StatusSeeOther))
		Expect(h.get("/oauth/device?user_code=" + d.userCode).status).To(Equal(http.StatusOK))
		Expect(h.decide(d.userCode, "guest", "approve").status).To(Equal(http.StatusOK))
		Expect(h.poll(d).status).To(Equal(http.StatusOK))
	})

	It("locks a user code after a few failed approval attempts from the owner's session naming it", func() {
		for range 5 {
			Expect(h.postForm("/oauth/device", url.Values{"user_code": {d.userCode}, "role": {"owner"},
				"action": {"approve"}, "csrf": {"forged"}}).status).To(Equal(http.StatusForbidden))
		}
		expectOAuthError(h.poll(d), http.StatusBadRequest, "access_denied", "")
		Expect(h.get("/oauth/device?user_code=" + d.userCode).status).To(Equal(http.StatusBadRequest))
	})

	It("counts anonymous posts naming a user code against their address, never against the code", func() {
		for range 10 {
			Expect(h.anonPostForm("/oauth/device", url.Values{"user_code": {d.userCode}, "role": {"owner"},
				"action": {"approve"}, "csrf": {"forged"}}).status).To(Equal(http.StatusForbidden))
		}
		Expect(h.anonPostForm("/oauth/device", url.Values{"user_code": {d.userCode}}).status).To(Equal(http.StatusTooManyRequests))
		pending()
		Expect(h.decide(d.userCode, "guest", "approve").status).To(Equal(http.StatusOK))
		Expect(h.poll(d).status).To(Equal(http.StatusOK))
	})

	It("asks for the owner secret in front of the authorization page too", func() {
		clientID := h.register("http://127.0.0.1/cb")
		q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {"http://127.0.0.1/cb"},
			"code_challenge": {strings.Repeat("a", 43)}, "code_challenge_method": {"S256"}}
		r := h.anonGet("/oauth/authorize?" + q.Encode())
		Expect(r.status).To(Equal(http.StatusOK))
		Expect(r.body).To(ContainSubstring(`id="owner_secret"`))
		Expect(r.body).NotTo(ContainSubstring(`name="csrf"`))
		q.Set("role", "owner")
		q.Set("action", "approve")
		q.Set("csrf", "forged")
		r = h.anonPostForm("/oauth/authorize", q)
		Expect(r.status).To(Equal(http.StatusForbidden))
		Expect(r.header.Get("Location")).To(BeEmpty(), "no code goes to the client")
	})
})
