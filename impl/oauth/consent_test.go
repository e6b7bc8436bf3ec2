package oauth_test

import (
	"net/http"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Device consent page (RFC 8628 section 3.3; PRODUCT.md section 6)", func() {
	var h *host
	var clientID string
	var d deviceStart
	BeforeEach(func() {
		h = newHost()
		clientID = h.register("https://app.example/cb", "http://127.0.0.1/cb")
		d = h.startDevice(clientID)
	})

	It("asks for the code when opened without one", func() {
		r := h.get("/oauth/device")
		Expect(r.status).To(Equal(http.StatusOK))
		Expect(r.header.Get("Content-Type")).To(Equal("text/html; charset=utf-8"))
		Expect(r.body).To(ContainSubstring(`<label for="user_code">`))
		Expect(r.body).To(ContainSubstring(`id="user_code" name="user_code"`))
		Expect(r.body).To(ContainSubstring(`id="continue"`))
	})

	It("is self-contained and cannot be framed", func() {
		r := h.get("/oauth/device")
		Expect(r.body).NotTo(ContainSubstring("<script"))
		Expect(r.body).NotTo(ContainSubstring("src="))
		Expect(r.body).NotTo(ContainSubstring("<link"))
		Expect(r.header.Get("Content-Security-Policy")).To(ContainSubstring("frame-ancestors 'none'"))
		Expect(r.header.Get("X-Frame-Options")).To(Equal("DENY"))
		Expect(r.header.Get("Cache-Control")).To(Equal("no-store"))
	})

	It("shows the client, a role choice with owner first, and the two buttons", func() {
		r := h.get("/oauth/device?user_code=" + d.userCode)
		Expect(r.status).To(Equal(http.StatusOK))
		Expect(r.body).To(ContainSubstring("Test client"))
		Expect(r.body).To(ContainSubstring(clientID))
		Expect(r.body).To(ContainSubstring("https://app.example/cb"))
		Expect(r.body).To(ContainSubstring("http://127.0.0.1/cb"))
		Expect(r.body).To(ContainSubstring(`<select id="role" name="role">`))
		Expect(r.body).To(MatchRegexp(`(?s)<option value="owner" selected>owner</option>\s*<option value="admin">admin</option>\s*<option value="member">member</option>\s*<option value="guest">guest</option>`))
		Expect(r.body).To(ContainSubstring(`<button id="approve" type="submit" name="action" value="approve">`))
		Expect(r.body).To(ContainSubstring(`<button id="deny" type="submit" name="action" value="deny">`))
		Expect(r.body).To(ContainSubstring(`<input type="hidden" name="user_code" value="` + d.userCode + `">`))
	})

	It("offers first the narrowest role that grants the scope the client asked for", func() {
		r := h.postForm("/oauth/device_authorization", url.Values{"client_id": {clientID}, "scope": {"afs:read afs:write openid"}})
		Expect(r.status).To(Equal(http.StatusOK), r.body)
		page := h.get("/oauth/device?user_code=" + r.str("user_code"))
		Expect(page.body).To(ContainSubstring(`<code id="scope">afs:read afs:write</code>`))
		Expect(page.body).To(MatchRegexp(`<option value="owner">owner</option>\s*<option value="admin">admin</option>\s*<option value="member" selected>member</option>`))
		By("offering owner first when nothing known was asked for")
		Expect(h.get("/oauth/device?user_code=" + d.userCode).body).NotTo(ContainSubstring(`id="scope"`))
	})

	It("reaches the same page through verification_uri_complete", func() {
		u, err := url.Parse(d.complete)
		Expect(err).NotTo(HaveOccurred())
		r := h.get(u.RequestURI())
		Expect(r.status).To(Equal(http.StatusOK))
		Expect(r.body).To(ContainSubstring(`id="approve"`))
	})

	It("accepts the code in lower case and without the hyphen", func() {
		typed := strings.ToLower(strings.ReplaceAll(d.userCode, "-", ""))
		r := h.get("/oauth/device?user_code=" + typed)
		Expect(r.status).To(Equal(http.StatusOK))
		Expect(r.body).To(ContainSubstring(`id="confirm_code">` + d.userCode + `<`))
	})

	It("says so when the code is unknown, and asks again", func() {
		r := h.get("/oauth/device?user_code=BCDF-GHJK")
		Expect(r.status).To(Equal(http.StatusBadRequest))
		Expect(r.body).To(ContainSubstring("unknown"))
		Expect(r.body).To(ContainSubstring(`role="alert"`))
		Expect(r.body).To(ContainSubstring(`id="user_code"`))
	})

	It("escapes what the client registered", func() {
		r := h.postJSON("/oauth/register", `{"redirect_uris":["https://a.example/cb"],"client_name":"<script>alert(1)</script>"}`)
		dd := h.startDevice(r.str("client_id"))
		page := h.get("/oauth/device?user_code=" + dd.userCode)
		Expect(page.body).NotTo(ContainSubstring("<script>alert"))
		Expect(page.body).To(ContainSubstring("&lt;script&gt;"))
	})

	It("records the chosen role in the credential", func() {
		r := h.decide(d.userCode, "guest", "approve")
		Expect(r.status).To(Equal(http.StatusOK))
		Expect(r.body).To(ContainSubstring("approved"))
		resp := h.poll(d)
		Expect(resp.str("scope")).To(Equal("afs:read"), "the token response names the role's scopes (RFC 6749 section 5.1)")
		c, err := h.server.Verify(ctx(), resp.str("access_token"))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.ClientID).To(Equal(clientID))
		Expect(c.Role).To(Equal("guest"))
	})

	It("refuses a decision without the page's csrf token", func() {
		r := h.postForm("/oauth/device", url.Values{"user_code": {d.userCode}, "role": {"owner"},
			"action": {"approve"}, "csrf": {"forged"}})
		Expect(r.status).To(Equal(http.StatusForbidden))
		expectOAuthError(h.poll(d), http.StatusBadRequest, "authorization_pending", "")
	})

	It("refuses a csrf token made for another code", func() {
		other := h.startDevice(clientID)
		page := h.get("/oauth/device?user_code=" + other.userCode)
		token := csrfField.FindStringSubmatch(page.body)[1]
		r := h.postForm("/oauth/device", url.Values{"user_code": {d.userCode}, "role": {"owner"},
			"action": {"approve"}, "csrf": {token}})
		Expect(r.status).To(Equal(http.StatusForbidden))
	})

	DescribeTable("refuses an unknown role or action",
		func(role, action string) {
			page := h.get("/oauth/device?user_code=" + d.userCode)
			token := csrfField.FindStringSubmatch(page.body)[1]
			r := h.postForm("/oauth/device", url.Values{"user_code": {d.userCode}, "role": {role},
				"action": {action}, "csrf": {token}})
			Expect(r.status).To(Equal(http.StatusBadRequest))
			expectOAuthError(h.poll(d), http.StatusBadRequest, "authorization_pending", "")
		},
		Entry("role root", "root", "approve"),
		Entry("no role", "", "approve"),
		Entry("action maybe", "owner", "maybe"),
	)

	It("refuses a second decision on the same code", func() {
		page := h.get("/oauth/device?user_code=" + d.userCode)
		token := csrfField.FindStringSubmatch(page.body)[1]
		form := url.Values{"user_code": {d.userCode}, "role": {"owner"}, "action": {"deny"}, "csrf": {token}}
		Expect(h.postForm("/oauth/device", form).status).To(Equal(http.StatusOK))
		form.Set("action", "approve")
		r := h.postForm("/oauth/device", form)
		Expect(r.status).To(Equal(http.StatusForbidden), "a rendered form approves once")
		Expect(r.body).To(ContainSubstring("already used"))
		expectOAuthError(h.poll(d), http.StatusBadRequest, "access_denied", "")
	})

	It("refuses an oversized form with a page, not a 500", func() {
		r := h.postRaw("/oauth/device", "user_code="+strings.Repeat("A", 70<<10))
		Expect(r.status).To(Equal(http.StatusBadRequest))
	})
})
