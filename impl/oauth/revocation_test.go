package oauth_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/oauth"
)

var _ = Describe("Token revocation (RFC 7009)", func() {
	var h *host
	BeforeEach(func() { h = newHost() })

	revoke := func(form url.Values) reply { return h.anonPostForm("/oauth/revoke", form) }
	valid := func(token string) bool {
		_, err := h.server.Verify(ctx(), token)
		return err == nil
	}

	It("is advertised in the authorization-server metadata (RFC 8414 section 2)", func() {
		r := h.get("/.well-known/oauth-authorization-server")
		Expect(r.json).To(HaveKeyWithValue("revocation_endpoint", h.url("/oauth/revoke")))
		Expect(r.json).To(HaveKeyWithValue("revocation_endpoint_auth_methods_supported", []any{"none"}))
	})

	It("revokes a credential for the client it was issued to, and answers 200 with no content", func() {
		clientID, token := h.deviceCredential("owner")
		Expect(valid(token)).To(BeTrue())
		r := revoke(url.Values{"token": {token}, "client_id": {clientID}, "token_type_hint": {"access_token"}})
		Expect(r.status).To(Equal(http.StatusOK))
		Expect(r.body).To(BeEmpty())
		Expect(r.header.Get("Cache-Control")).To(Equal("no-store"))
		_, err := h.server.Verify(ctx(), token)
		Expect(errors.Is(err, oauth.ErrInvalidCredential)).To(BeTrue())
		By("answering 200 again for the token now revoked (section 2.2)")
		Expect(revoke(url.Values{"token": {token}, "client_id": {clientID}}).status).To(Equal(http.StatusOK))
	})

	It("answers 200 for a token it never issued, whatever its hint", func() {
		for _, hint := range []string{"", "refresh_token", "something_else"} {
			Expect(revoke(url.Values{"token": {"never-issued"}, "client_id": {"someone"}, "token_type_hint": {hint}}).status).
				To(Equal(http.StatusOK))
		}
	})

	It("refuses to revoke another client's token, which stays valid", func() {
		_, token := h.deviceCredential("owner")
		expectOAuthError(revoke(url.Values{"token": {token}, "client_id": {h.register()}}), http.StatusBadRequest,
			"invalid_request", "The token was not issued to this client")
		Expect(valid(token)).To(BeTrue())
	})

	It("refuses a request naming no client, or no token", func() {
		_, token := h.deviceCredential("owner")
		expectOAuthError(revoke(url.Values{"token": {token}}), http.StatusBadRequest, "invalid_request",
			"Missing client_id: a token is revoked by the client it was issued to")
		expectOAuthError(revoke(url.Values{"client_id": {"someone"}}), http.StatusBadRequest, "invalid_request", "Missing token")
		Expect(valid(token)).To(BeTrue())
	})

	It("lets the signed-in owner revoke any token without naming its client", func() {
		_, token := h.deviceCredential("guest")
		Expect(h.postForm("/oauth/revoke", url.Values{"token": {token}}).status).To(Equal(http.StatusOK))
		Expect(valid(token)).To(BeFalse())
	})

	It("lets the owner revoke while anonymous requests from the same address have spent the token limit", func() {
		_, token := h.deviceCredential("guest")
		for range 200 {
			if h.anonPostForm("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"x"}, "client_id": {"c"}}).status == http.StatusTooManyRequests {
				break
			}
		}
		Expect(revoke(url.Values{"token": {"never-issued"}, "client_id": {"someone"}}).status).To(Equal(http.StatusTooManyRequests), "the limit is spent")
		Expect(h.postForm("/oauth/revoke", url.Values{"token": {token}}).status).To(Equal(http.StatusOK))
		Expect(valid(token)).To(BeFalse())
	})

	It("does not take the owner's session from another site", func() {
		_, token := h.deviceCredential("guest")
		req, err := http.NewRequest(http.MethodPost, h.url("/oauth/revoke"), strings.NewReader(url.Values{"token": {token}}.Encode()))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		expectOAuthError(doWith(h.browser, req), http.StatusBadRequest, "invalid_request", "")
		Expect(valid(token)).To(BeTrue())
	})

	It("answers only POST", func() {
		Expect(h.get("/oauth/revoke").status).To(Equal(http.StatusMethodNotAllowed))
	})
})
