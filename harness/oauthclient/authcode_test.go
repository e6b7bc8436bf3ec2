package oauthclient_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
	"github.com/conform-mcp/conform/harness/oauthclient"
)

var _ = Describe("the authorization code client", func() {
	It("makes an S256 challenge of a fresh verifier", func() {
		v1, c1 := oauthclient.PKCE()
		v2, _ := oauthclient.PKCE()
		Expect(v1).NotTo(Equal(v2))
		Expect(len(v1)).To(BeNumerically(">=", 43))
		sum := sha256.Sum256([]byte(v1))
		Expect(c1).To(Equal(base64.RawURLEncoding.EncodeToString(sum[:])))
	})

	It("sends only the parameters a request sets", func() {
		u, err := oauthclient.AuthorizationRequest{Endpoint: "https://auth.example/authorize?tenant=1", ClientID: "c", RedirectURI: "http://127.0.0.1:8765/cb"}.URL()
		Expect(err).NotTo(HaveOccurred())
		q, _ := url.Parse(u)
		Expect(q.Query()).To(Equal(url.Values{"tenant": {"1"}, "response_type": {"code"}, "client_id": {"c"}, "redirect_uri": {"http://127.0.0.1:8765/cb"}}))
	})

	It("tells a redirect to the redirect URI from one elsewhere", func() {
		r, err := oauthclient.ReadRedirect("http://127.0.0.1:8765/cb?code=x&iss=https%3A%2F%2Fauth.example", "http://127.0.0.1:8765/cb")
		Expect(err).NotTo(HaveOccurred())
		Expect(r.ToRedirectURI).To(BeTrue())
		Expect(r.Params.Get("iss")).To(Equal("https://auth.example"))
		r, err = oauthclient.ReadRedirect("http://127.0.0.1:8765/cb/evil?code=x", "http://127.0.0.1:8765/cb")
		Expect(err).NotTo(HaveOccurred())
		Expect(r.ToRedirectURI).To(BeFalse())
	})
})

var _ = Describe("the whole flow against an authorization server on another origin", func() {
	It("finds the issuer through the resource metadata and obtains a token for the resource asked for", func(ctx context.Context) {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		t := h.Target()
		issuer, scopes, err := oauthclient.FindIssuer(ctx, t.HTTP, h.Endpoint(), "")
		Expect(err).NotTo(HaveOccurred())
		Expect(issuer).To(Equal(h.Issuer()))
		Expect(scopes).To(Equal([]string{fakeauthz.ScopeTools, fakeauthz.ScopeWrite}))
		flow := oauthclient.CodeFlow{HTTP: t.HTTP, Approve: t.ApproveAuthorization, RedirectURI: "http://127.0.0.1:8765/callback"}
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
			flow := oauthclient.CodeFlow{HTTP: t.HTTP, Approve: t.ApproveAuthorization, RedirectURI: "http://127.0.0.1:8765/callback"}
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
})

// metadata is authorization server metadata holding doc, as found.
func metadata(doc map[string]any) *oauthclient.ServerMetadata {
	return &oauthclient.ServerMetadata{Reply: &oauthclient.Reply{JSON: doc}}
}

var _ = DescribeTable("checks the authorization response's iss as MCP's Authorization Response Validation tells a client to",
	func(advertised bool, query string, ok bool) {
		md := metadata(map[string]any{"issuer": "https://auth.example/t", "authorization_response_iss_parameter_supported": advertised})
		r, err := oauthclient.ReadRedirect("http://127.0.0.1:8765/cb?code=x"+query, "http://127.0.0.1:8765/cb")
		Expect(err).NotTo(HaveOccurred())
		if ok {
			Expect(r.CheckIss(md)).To(Succeed())
		} else {
			Expect(r.CheckIss(md)).To(MatchError(ContainSubstring("RFC 9207")))
		}
	},
	Entry("advertised and the issuer", true, "&iss=https%3A%2F%2Fauth.example%2Ft", true),
	Entry("advertised and absent", true, "", false),
	Entry("advertised and another issuer", true, "&iss=https%3A%2F%2Fevil.example", false),
	Entry("not advertised, present: compared all the same", false, "&iss=https%3A%2F%2Fevil.example", false),
	Entry("not advertised, present and the issuer", false, "&iss=https%3A%2F%2Fauth.example%2Ft", true),
	Entry("not advertised and absent", false, "", true),
	Entry("the issuer with a trailing slash: no normalization", true, "&iss=https%3A%2F%2Fauth.example%2Ft%2F", false),
	Entry("the issuer's host in capitals: no case folding", true, "&iss=https%3A%2F%2FAUTH.example%2Ft", false),
)

// jwt is an unsigned JWT with the given claims, for reading premises only.
func jwt(claims string) string {
	return "eyJhbGciOiJub25lIn0." + base64.RawURLEncoding.EncodeToString([]byte(claims)) + ".c2ln"
}
