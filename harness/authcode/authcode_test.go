package authcode_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/authcode"
	"github.com/conform-mcp/conform/harness/fakeauthz"
)

var _ = Describe("the authorization code client", func() {
	It("tries the metadata URIs of an issuer with a path in the order the specification gives", func() {
		uris, err := authcode.WellKnown("https://auth.example/tenant1")
		Expect(err).NotTo(HaveOccurred())
		Expect(uris).To(Equal([]string{
			"https://auth.example/.well-known/oauth-authorization-server/tenant1",
			"https://auth.example/.well-known/openid-configuration/tenant1",
			"https://auth.example/tenant1/.well-known/openid-configuration",
		}))
	})

	DescribeTable("names the application_type MCP's Client Registration gives the redirect URI",
		func(redirectURI, want string) {
			Expect(authcode.ApplicationType(redirectURI)).To(Equal(want))
		},
		Entry("a loopback IP", "http://127.0.0.1:8765/callback", "native"),
		Entry("an IPv6 loopback IP", "http://[::1]:8765/callback", "native"),
		Entry("localhost", "http://localhost:3000/callback", "native"),
		Entry("localhost in capitals, which names the same host", "http://LOCALHOST:3000/callback", "native"),
		Entry("a private-use scheme", "com.example.app:/callback", "native"),
		Entry("a remote https host", "https://app.example/callback", "web"),
		Entry("a remote http host", "http://app.example/callback", "web"),
	)

	It("tries RFC 8414 then OpenID Connect Discovery for an issuer without a path", func() {
		uris, err := authcode.WellKnown("https://auth.example/")
		Expect(err).NotTo(HaveOccurred())
		Expect(uris).To(Equal([]string{
			"https://auth.example/.well-known/oauth-authorization-server",
			"https://auth.example/.well-known/openid-configuration",
		}))
		_, err = authcode.WellKnown("auth.example")
		Expect(err).To(HaveOccurred())
	})

	It("finds the first document that answers, keeping the answers before it", func() {
		mux := http.NewServeMux()
		mux.HandleFunc("/.well-known/openid-configuration/t", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"issuer":"x"}`))
		})
		srv := httptest.NewServer(mux)
		defer srv.Close()
		md, tried, err := authcode.Discover(context.Background(), srv.Client(), srv.URL+"/t")
		Expect(err).NotTo(HaveOccurred())
		Expect(md.URL).To(Equal(srv.URL + "/.well-known/openid-configuration/t"))
		Expect(md.String("issuer")).To(Equal("x"))
		Expect(tried).To(HaveLen(1))
		Expect(tried[0].Status).To(Equal(http.StatusNotFound))
	})

	It("makes an S256 challenge of a fresh verifier", func() {
		v1, c1 := authcode.PKCE()
		v2, _ := authcode.PKCE()
		Expect(v1).NotTo(Equal(v2))
		Expect(len(v1)).To(BeNumerically(">=", 43))
		sum := sha256.Sum256([]byte(v1))
		Expect(c1).To(Equal(base64.RawURLEncoding.EncodeToString(sum[:])))
	})

	It("sends only the parameters a request sets", func() {
		u, err := authcode.Request{Endpoint: "https://auth.example/authorize?tenant=1", ClientID: "c", RedirectURI: "http://127.0.0.1:8765/cb"}.URL()
		Expect(err).NotTo(HaveOccurred())
		q, _ := url.Parse(u)
		Expect(q.Query()).To(Equal(url.Values{"tenant": {"1"}, "response_type": {"code"}, "client_id": {"c"}, "redirect_uri": {"http://127.0.0.1:8765/cb"}}))
	})

	It("tells a redirect to the redirect URI from one elsewhere", func() {
		r, err := authcode.ReadRedirect("http://127.0.0.1:8765/cb?code=x&iss=https%3A%2F%2Fauth.example", "http://127.0.0.1:8765/cb")
		Expect(err).NotTo(HaveOccurred())
		Expect(r.ToRedirectURI).To(BeTrue())
		Expect(r.Params.Get("iss")).To(Equal("https://auth.example"))
		r, err = authcode.ReadRedirect("http://127.0.0.1:8765/cb/evil?code=x", "http://127.0.0.1:8765/cb")
		Expect(err).NotTo(HaveOccurred())
		Expect(r.ToRedirectURI).To(BeFalse())
	})
})

var _ = DescribeTable("chooses the scope as MCP's Scope Selection Strategy orders it",
	func(challenge string, supported []string, want string) {
		Expect(authcode.Scope(challenge, supported)).To(Equal(want))
	},
	Entry("the challenge's scope first", "files:read", []string{"a", "b"}, "files:read"),
	Entry("else every scope the metadata supports", "", []string{"a", "b"}, "a b"),
	Entry("else none", "", nil, ""),
)

var _ = Describe("the whole flow against an authorization server on another origin", func() {
	It("finds the issuer through the resource metadata and obtains a token for the resource asked for", func(ctx context.Context) {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		t := h.Target()
		issuer, scopes, err := authcode.FindIssuer(ctx, t.HTTP, h.Endpoint(), "")
		Expect(err).NotTo(HaveOccurred())
		Expect(issuer).To(Equal(h.Issuer()))
		Expect(scopes).To(Equal([]string{fakeauthz.ScopeTools, fakeauthz.ScopeWrite}))
		flow := authcode.Client{HTTP: t.HTTP, Approve: t.ApproveAuthorization, RedirectURI: "http://127.0.0.1:8765/callback"}
		tok, err := flow.Obtain(ctx, issuer, h.Endpoint())
		Expect(err).NotTo(HaveOccurred())
		Expect(tok).To(HaveKey("access_token"))
		Expect(tok).To(HaveKey("refresh_token"))
	})

	DescribeTable("shows whether the authorization server binds tokens to their resource (RFC 8707)",
		func(ctx context.Context, choice []fakeauthz.Break, token string, bound bool) {
			h := fakeauthz.Start(choice...)
			DeferCleanup(h.Close)
			t := h.Target()
			flow := authcode.Client{HTTP: t.HTTP, Approve: t.ApproveAuthorization, RedirectURI: "http://127.0.0.1:8765/callback"}
			_, err := flow.Obtain(ctx, h.Issuer(), "https://other.example/mcp")
			Expect(err).NotTo(HaveOccurred())
			proof, why := flow.HonoursResource(ctx, h.Issuer(), token, "https://other.example/mcp", h.Endpoint())
			if bound {
				Expect(proof).NotTo(BeEmpty())
				Expect(why).To(BeEmpty())
			} else {
				Expect(proof).To(BeEmpty())
				Expect(why).NotTo(BeEmpty())
			}
		},
		Entry("a server that refuses an unknown resource with invalid_target", []fakeauthz.Break{fakeauthz.ResourceIndicators}, "opaque", true),
		Entry("a server that takes any resource, with an opaque token", nil, "opaque", false),
		Entry("a JWT whose aud is the other resource", nil, jwt(`{"aud":"https://other.example/mcp"}`), true),
		Entry("a JWT whose aud names no resource asked for", nil, jwt(`{"aud":"https://elsewhere.example"}`), false),
	)

	It("says why when no metadata names an authorization server", func(ctx context.Context) {
		h := fakeauthz.Start(fakeauthz.MetadataUndiscoverable)
		DeferCleanup(h.Close)
		_, _, err := authcode.FindIssuer(ctx, h.Target().HTTP, h.Endpoint(), "")
		Expect(err).To(MatchError(ContainSubstring("no protected resource metadata")))
	})
})

// jwt is an unsigned JWT with the given claims, for reading premises only.
func jwt(claims string) string {
	return "eyJhbGciOiJub25lIn0." + base64.RawURLEncoding.EncodeToString([]byte(claims)) + ".c2ln"
}
