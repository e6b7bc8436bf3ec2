package oauthclient_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/oauthclient"
)

// tokenRequest is what a token endpoint received.
type tokenRequest struct {
	form       url.Values
	user, pass string
	basic      bool
}

// sendToken sends a code redemption of client c authenticated with s, and
// returns what the endpoint received.
func sendToken(s oauthclient.Secret) tokenRequest {
	var got tokenRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer GinkgoRecover()
		Expect(r.ParseForm()).To(Succeed())
		got.form = r.PostForm
		got.user, got.pass, got.basic = r.BasicAuth()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "t", "token_type": "Bearer"})
	}))
	DeferCleanup(srv.Close)
	form := oauthclient.CodeForm("code", "c", "http://127.0.0.1:8765/callback", "v", "")
	_, err := s.Token(context.Background(), srv.Client(), srv.URL, form)
	Expect(err).NotTo(HaveOccurred())
	Expect(form.Get("client_id")).To(Equal("c"), "the caller's form is left as it was")
	return got
}

var _ = Describe("client authentication at the token endpoint", func() {
	It("names a public client with client_id alone", func() {
		got := sendToken(oauthclient.Secret{})
		Expect(got.basic).To(BeFalse())
		Expect(got.form.Get("client_id")).To(Equal("c"))
		Expect(got.form.Has("client_secret")).To(BeFalse())
	})
	It("sends client_secret_basic in HTTP Basic alone, without client_id in the form (RFC 6749 2.3: one method per request)", func() {
		got := sendToken(oauthclient.Secret{Value: "s"})
		Expect(got.basic).To(BeTrue())
		Expect([]string{got.user, got.pass}).To(Equal([]string{"c", "s"}))
		Expect(got.form.Has("client_id")).To(BeFalse())
		Expect(got.form.Has("client_secret")).To(BeFalse())
	})
	It("sends client_secret_post in the form alone", func() {
		got := sendToken(oauthclient.Secret{Value: "s", Post: true})
		Expect(got.basic).To(BeFalse())
		Expect(got.form.Get("client_id")).To(Equal("c"))
		Expect(got.form.Get("client_secret")).To(Equal("s"))
	})

	DescribeTable("uses the method the client was registered with before what the metadata lists",
		func(method, listed string, want oauthclient.Secret) {
			md := &oauthclient.ServerMetadata{Reply: &oauthclient.Reply{JSON: map[string]any{}}}
			if listed != "" {
				md.Reply.JSON["token_endpoint_auth_methods_supported"] = []any{listed}
			}
			Expect(oauthclient.SecretFor(md, method, "s")).To(Equal(want))
		},
		Entry("client_secret_post registered", "client_secret_post", "client_secret_basic", oauthclient.Secret{Value: "s", Post: true}),
		Entry("client_secret_basic registered", "client_secret_basic", "client_secret_post", oauthclient.Secret{Value: "s"}),
		Entry("none registered", "none", "", oauthclient.Secret{}),
		Entry("unknown, the metadata lists post alone", "", "client_secret_post", oauthclient.Secret{Value: "s", Post: true}),
		Entry("unknown, the metadata lists nothing", "", "", oauthclient.Secret{Value: "s"}),
	)

	It("reads the client_secret and token_endpoint_auth_method a registration answered with, client_secret_basic by default (RFC 7591 2)", func() {
		id, secret, method := oauthclient.Registered(&oauthclient.Reply{JSON: map[string]any{"client_id": "c", "client_secret": "s"}})
		Expect([]string{id, secret, method}).To(Equal([]string{"c", "s", "client_secret_basic"}))
		id, secret, method = oauthclient.Registered(&oauthclient.Reply{JSON: map[string]any{"client_id": "c", "token_endpoint_auth_method": "none"}})
		Expect([]string{id, secret, method}).To(Equal([]string{"c", "", "none"}))
	})
})
