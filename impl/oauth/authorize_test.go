package oauth_test

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/oauth"
)

var hiddenField = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)

var _ = Describe("Authorization code grant with PKCE (RFC 6749 section 4.1, RFC 7636)", func() {
	const redirect = "http://127.0.0.1/callback"
	const verifier = "dBjftJeZ4CVP-mJ92K1nRn4Q8yZx7w1kvjK5HdzQyKk0abcdefghij"
	var challenge = func() string {
		sum := sha256.Sum256([]byte(verifier))
		return base64.RawURLEncoding.EncodeToString(sum[:])
	}()

	var h *host
	var clientID string
	BeforeEach(func() {
		h = newHost()
		clientID = h.register(redirect, "com.example.app:/cb")
	})

	authorizeQuery := func(overrides map[string]string) string {
		q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect},
			"state": {"xyz"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
		for k, v := range overrides {
			if v == "" {
				q.Del(k)
			} else {
				q.Set(k, v)
			}
		}
		return "/oauth/authorize?" + q.Encode()
	}

	// decideAuthorize opens the consent page and posts its form back.
	decideAuthorize := func(path, role, action string) *url.URL {
		page := h.get(path)
		Expect(page.status).To(Equal(http.StatusOK), page.body)
		form := url.Values{"role": {role}, "action": {action}}
		for _, m := range hiddenField.FindAllStringSubmatch(page.body, -1) {
			form.Set(m[1], html.UnescapeString(m[2]))
		}
		r := h.postForm("/oauth/authorize", form)
		Expect(r.status).To(Equal(http.StatusSeeOther), r.body)
		u, err := url.Parse(r.header.Get("Location"))
		Expect(err).NotTo(HaveOccurred())
		return u
	}

	redeem := func(code string, overrides map[string]string) reply {
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
			"client_id": {clientID}, "code_verifier": {verifier}}
		for k, v := range overrides {
			form.Set(k, v)
		}
		return h.postForm("/oauth/token", form)
	}

	codeFor := func(role string) string {
		u := decideAuthorize(authorizeQuery(nil), role, "approve")
		Expect(u.Query().Get("state")).To(Equal("xyz"))
		Expect(u.Query().Get("iss")).To(Equal(h.http.URL))
		return u.Query().Get("code")
	}

	It("shows a consent page like the device one", func() {
		r := h.get(authorizeQuery(nil))
		Expect(r.status).To(Equal(http.StatusOK))
		Expect(r.body).To(ContainSubstring(`id="role"`))
		Expect(r.body).To(ContainSubstring(`id="approve"`))
		Expect(r.body).To(ContainSubstring(`id="deny"`))
		Expect(r.body).To(ContainSubstring(clientID))
	})

	It("offers first the role that grants the scope asked for, as after a scope challenge", func() {
		page := h.get(authorizeQuery(map[string]string{"scope": "afs:read"}))
		Expect(page.status).To(Equal(http.StatusOK), page.body)
		Expect(page.body).To(ContainSubstring(`<option value="guest" selected>guest</option>`))
		Expect(page.body).To(ContainSubstring(`<input type="hidden" name="scope" value="afs:read">`))
		u := decideAuthorize(authorizeQuery(map[string]string{"scope": "afs:read"}), "guest", "approve")
		Expect(redeem(u.Query().Get("code"), nil).str("scope")).To(Equal("afs:read"))
	})

	It("issues a code, then a credential and a refresh token for the right verifier", func() {
		code := codeFor("admin")
		Expect(code).NotTo(BeEmpty())
		r := redeem(code, nil)
		Expect(r.status).To(Equal(http.StatusOK), r.body)
		Expect(r.json).To(HaveKeyWithValue("token_type", "Bearer"))
		Expect(r.json).To(HaveKeyWithValue("expires_in", BeNumerically("==", 3600)))
		Expect(r.str("refresh_token")).NotTo(BeEmpty())
		c, err := h.server.Verify(ctx(), r.str("access_token"))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Role).To(Equal("admin"))
		Expect(c.ClientID).To(Equal(clientID))
	})

	It("accepts a loopback redirect on any port (RFC 8252 section 7.3)", func() {
		withPort := "http://127.0.0.1:53124/callback"
		u := decideAuthorize(authorizeQuery(map[string]string{"redirect_uri": withPort}), "owner", "approve")
		Expect(u.Host).To(Equal("127.0.0.1:53124"))
		Expect(redeem(u.Query().Get("code"), map[string]string{"redirect_uri": withPort}).status).To(Equal(http.StatusOK))
	})

	It("redirects to a private-use scheme", func() {
		u := decideAuthorize(authorizeQuery(map[string]string{"redirect_uri": "com.example.app:/cb"}), "owner", "approve")
		Expect(u.Scheme).To(Equal("com.example.app"))
		Expect(u.Query().Get("code")).NotTo(BeEmpty())
	})

	It("redirects with access_denied when the person denies", func() {
		u := decideAuthorize(authorizeQuery(nil), "owner", "deny")
		Expect(u.Query().Get("error")).To(Equal("access_denied"))
		Expect(u.Query().Get("state")).To(Equal("xyz"))
		Expect(u.Query().Has("code")).To(BeFalse())
	})

	It("ends the credential after an hour", func() {
		tok := redeem(codeFor("owner"), nil).str("access_token")
		h.clock.Advance(time.Hour - time.Second)
		_, err := h.server.Verify(ctx(), tok)
		Expect(err).NotTo(HaveOccurred())
		h.clock.Advance(time.Second)
		_, err = h.server.Verify(ctx(), tok)
		Expect(errors.Is(err, oauth.ErrInvalidCredential)).To(BeTrue())
	})

	Describe("refusals at the token endpoint", func() {
		It("refuses a verifier that does not match the challenge", func() {
			expectOAuthError(redeem(codeFor("owner"), map[string]string{"code_verifier": strings.Repeat("a", 43)}),
				http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge")
		})

		It("refuses a verifier of the wrong syntax", func() {
			expectOAuthError(redeem(codeFor("owner"), map[string]string{"code_verifier": "short"}),
				http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge")
		})

		It("refuses a different redirect_uri", func() {
			expectOAuthError(redeem(codeFor("owner"), map[string]string{"redirect_uri": "com.example.app:/cb"}),
				http.StatusBadRequest, "invalid_grant", "redirect_uri does not match the authorization request")
		})

		It("refuses another client's code", func() {
			expectOAuthError(redeem(codeFor("owner"), map[string]string{"client_id": h.register(redirect)}),
				http.StatusBadRequest, "invalid_grant", "The authorization code was issued to another client")
		})

		It("refuses an unknown code", func() {
			expectOAuthError(redeem("nope", nil), http.StatusBadRequest, "invalid_grant", "Invalid or expired authorization code")
		})

		It("refuses a code after its 60 seconds", func() {
			code := codeFor("owner")
			h.clock.Advance(time.Minute)
			expectOAuthError(redeem(code, nil), http.StatusBadRequest, "invalid_grant", "Invalid or expired authorization code")
		})

		DescribeTable("refuses a missing parameter as invalid_request",
			func(name string) {
				form := url.Values{"grant_type": {"authorization_code"}, "code": {"c"}, "redirect_uri": {redirect},
					"client_id": {clientID}, "code_verifier": {verifier}}
				form.Del(name)
				expectOAuthError(h.postForm("/oauth/token", form), http.StatusBadRequest, "invalid_request", "Missing "+name)
			},
			Entry("code", "code"), Entry("redirect_uri", "redirect_uri"),
			Entry("code_verifier", "code_verifier"), Entry("client_id", "client_id"),
		)

		It("refuses a replayed code and revokes what it issued (RFC 6749 section 4.1.2)", func() {
			code := codeFor("owner")
			first := redeem(code, nil)
			Expect(first.status).To(Equal(http.StatusOK))
			expectOAuthError(redeem(code, nil), http.StatusBadRequest, "invalid_grant",
				"Authorization code already used; what it issued is revoked")
			_, err := h.server.Verify(ctx(), first.str("access_token"))
			Expect(errors.Is(err, oauth.ErrInvalidCredential)).To(BeTrue())
			expectOAuthError(h.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"},
				"refresh_token": {first.str("refresh_token")}, "client_id": {clientID}}), http.StatusBadRequest, "invalid_grant", "")
		})
	})

	Describe("refusals at the authorization endpoint", func() {
		DescribeTable("shows an error page, without redirecting, for a bad client or redirect_uri",
			func(overrides map[string]string) {
				r := h.get(authorizeQuery(overrides))
				Expect(r.status).To(Equal(http.StatusBadRequest))
				Expect(r.header.Get("Location")).To(BeEmpty())
				Expect(r.body).To(ContainSubstring(`role="alert"`))
			},
			Entry("unknown client", map[string]string{"client_id": "nope"}),
			Entry("missing client", map[string]string{"client_id": ""}),
			Entry("unregistered redirect_uri", map[string]string{"redirect_uri": "https://evil.example/cb"}),
			Entry("missing redirect_uri", map[string]string{"redirect_uri": ""}),
			Entry("loopback with another path", map[string]string{"redirect_uri": "http://127.0.0.1:9/other"}),
		)

		DescribeTable("redirects other errors back to the client",
			func(overrides map[string]string, code string) {
				r := h.get(authorizeQuery(overrides))
				Expect(r.status).To(Equal(http.StatusFound))
				u, err := url.Parse(r.header.Get("Location"))
				Expect(err).NotTo(HaveOccurred())
				Expect(u.Query().Get("error")).To(Equal(code))
				Expect(u.Query().Get("state")).To(Equal("xyz"))
			},
			Entry("no PKCE", map[string]string{"code_challenge": "", "code_challenge_method": ""}, "invalid_request"),
			Entry("plain PKCE", map[string]string{"code_challenge_method": "plain"}, "invalid_request"),
			Entry("a challenge that is no SHA-256", map[string]string{"code_challenge": "abc"}, "invalid_request"),
			Entry("response_type token", map[string]string{"response_type": "token"}, "unsupported_response_type"),
			Entry("no response_type", map[string]string{"response_type": ""}, "invalid_request"),
		)

		It("refuses a decision whose csrf does not match the request", func() {
			page := h.get(authorizeQuery(nil))
			form := url.Values{"role": {"owner"}, "action": {"approve"}}
			for _, m := range hiddenField.FindAllStringSubmatch(page.body, -1) {
				form.Set(m[1], m[2])
			}
			form.Set("state", "changed")
			Expect(h.postForm("/oauth/authorize", form).status).To(Equal(http.StatusForbidden))
		})
	})

	Describe("refresh tokens (RFC 6749 section 6)", func() {
		It("rotates the refresh token and replaces the credential", func() {
			first := redeem(codeFor("member"), nil)
			r := h.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"},
				"refresh_token": {first.str("refresh_token")}, "client_id": {clientID}})
			Expect(r.status).To(Equal(http.StatusOK), r.body)
			Expect(r.str("refresh_token")).NotTo(Equal(first.str("refresh_token")))
			c, err := h.server.Verify(ctx(), r.str("access_token"))
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Role).To(Equal("member"))

			By("revoking the previous pair")
			_, err = h.server.Verify(ctx(), first.str("access_token"))
			Expect(errors.Is(err, oauth.ErrInvalidCredential)).To(BeTrue())
			expectOAuthError(h.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"},
				"refresh_token": {first.str("refresh_token")}, "client_id": {clientID}}), http.StatusBadRequest, "invalid_grant", "")
		})

		It("revokes the whole grant when a rotated refresh token is replayed (RFC 9700 section 4.14.2)", func() {
			refresh := func(token string) reply {
				return h.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"},
					"refresh_token": {token}, "client_id": {clientID}})
			}
			first := redeem(codeFor("owner"), nil)
			second := refresh(first.str("refresh_token"))
			Expect(second.status).To(Equal(http.StatusOK), second.body)
			third := refresh(second.str("refresh_token"))
			Expect(third.status).To(Equal(http.StatusOK), third.body)
			_, err := h.server.Verify(ctx(), third.str("access_token"))
			Expect(err).NotTo(HaveOccurred())

			By("replaying the first, long rotated, refresh token")
			expectOAuthError(refresh(first.str("refresh_token")), http.StatusBadRequest, "invalid_grant",
				"Refresh token already used; every token of its grant is revoked")

			By("finding every token of the grant revoked")
			_, err = h.server.Verify(ctx(), third.str("access_token"))
			Expect(errors.Is(err, oauth.ErrInvalidCredential)).To(BeTrue())
			expectOAuthError(refresh(third.str("refresh_token")), http.StatusBadRequest, "invalid_grant",
				"Invalid or revoked refresh_token")

			By("leaving another grant of the same client alone")
			other := redeem(codeFor("owner"), nil)
			_, err = h.server.Verify(ctx(), other.str("access_token"))
			Expect(err).NotTo(HaveOccurred())
			Expect(refresh(other.str("refresh_token")).status).To(Equal(http.StatusOK))
		})

		It("refuses a refresh token presented without client_id, and leaves it usable", func() {
			first := redeem(codeFor("owner"), nil)
			expectOAuthError(h.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"},
				"refresh_token": {first.str("refresh_token")}}), http.StatusBadRequest, "invalid_request",
				"Missing client_id: a refresh token is redeemed by the client it was issued to")
			r := h.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"},
				"refresh_token": {first.str("refresh_token")}, "client_id": {clientID}})
			Expect(r.status).To(Equal(http.StatusOK), r.body)
		})

		It("revokes its whole grant when it is revoked (RFC 7009 section 2.1)", func() {
			first := redeem(codeFor("owner"), nil)
			second := redeem(codeFor("owner"), nil)
			r := h.anonPostForm("/oauth/revoke", url.Values{"token": {first.str("refresh_token")},
				"token_type_hint": {"refresh_token"}, "client_id": {clientID}})
			Expect(r.status).To(Equal(http.StatusOK), r.body)
			_, err := h.server.Verify(ctx(), first.str("access_token"))
			Expect(errors.Is(err, oauth.ErrInvalidCredential)).To(BeTrue())
			expectOAuthError(h.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"},
				"refresh_token": {first.str("refresh_token")}, "client_id": {clientID}}), http.StatusBadRequest,
				"invalid_grant", "Invalid or revoked refresh_token")
			By("leaving another grant of the same client alone")
			_, err = h.server.Verify(ctx(), second.str("access_token"))
			Expect(err).NotTo(HaveOccurred())
		})

		It("is never accepted as a credential", func() {
			first := redeem(codeFor("owner"), nil)
			_, err := h.server.Verify(ctx(), first.str("refresh_token"))
			Expect(errors.Is(err, oauth.ErrInvalidCredential)).To(BeTrue())
		})

		It("refuses an unknown refresh token and a missing one", func() {
			expectOAuthError(h.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"},
				"refresh_token": {"nope"}, "client_id": {clientID}}), http.StatusBadRequest, "invalid_grant", "Invalid or revoked refresh_token")
			expectOAuthError(h.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"}}),
				http.StatusBadRequest, "invalid_request", "Missing refresh_token")
		})

		It("refuses another client's refresh token", func() {
			first := redeem(codeFor("owner"), nil)
			expectOAuthError(h.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"},
				"refresh_token": {first.str("refresh_token")}, "client_id": {h.register()}}),
				http.StatusBadRequest, "invalid_grant", "")
		})
	})
})
