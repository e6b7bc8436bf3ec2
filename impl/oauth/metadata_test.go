package oauth_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/baseurl"
	"github.com/conform-mcp/conform/impl/oauth"
)

var _ = Describe("Metadata documents (RFC 9728, RFC 8414; source section 4)", func() {
	It("serves the protected-resource document for {base}/mcp", func() {
		h := newHost()
		for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
			r := h.get(path)
			Expect(r.status).To(Equal(http.StatusOK))
			Expect(r.header.Get("Content-Type")).To(Equal("application/json"))
			Expect(r.json).To(Equal(map[string]any{
				"resource":              h.url("/mcp"),
				"authorization_servers": []any{h.http.URL},
				"scopes_supported":      []any{"afs:read", "afs:write", "afs:delete", "afs:exec"},
			}))
		}
	})

	It("serves the authorization-server document naming every endpoint", func() {
		h := newHost()
		r := h.get("/.well-known/oauth-authorization-server")
		Expect(r.status).To(Equal(http.StatusOK))
		Expect(r.json).To(HaveKeyWithValue("issuer", h.http.URL))
		Expect(r.json).To(HaveKeyWithValue("registration_endpoint", h.url("/oauth/register")))
		Expect(r.json).To(HaveKeyWithValue("device_authorization_endpoint", h.url("/oauth/device_authorization")))
		Expect(r.json).To(HaveKeyWithValue("authorization_endpoint", h.url("/oauth/authorize")))
		Expect(r.json).To(HaveKeyWithValue("token_endpoint", h.url("/oauth/token")))
		Expect(r.json).To(HaveKeyWithValue("grant_types_supported",
			[]any{deviceURN, "authorization_code", "refresh_token"}))
		Expect(r.json).To(HaveKeyWithValue("response_types_supported", []any{"code"}))
		Expect(r.json).To(HaveKeyWithValue("code_challenge_methods_supported", []any{"S256"}))
		Expect(r.json).To(HaveKeyWithValue("token_endpoint_auth_methods_supported", []any{"none"}))
		Expect(r.json).To(HaveKeyWithValue("scopes_supported", []any{"afs:read", "afs:write", "afs:delete", "afs:exec"}))
	})

	It("advertises a configured public base URL", func() {
		h := newHost(oauth.Options{BaseURL: baseurl.Resolver{Public: "https://tools.example/"}})
		r := h.get("/.well-known/oauth-protected-resource")
		Expect(r.json).To(HaveKeyWithValue("resource", "https://tools.example/mcp"))
		d := h.startDevice(h.register())
		Expect(d.verificationURI).To(Equal("https://tools.example/oauth/device"))
	})
})
