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

// introspector is an introspection endpoint that answers with answer and
// keeps the last request's form and Basic credentials.
type introspector struct {
	answer     any
	status     int
	form       url.Values
	user, pass string
	basic      bool
}

func (in *introspector) serve() *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer GinkgoRecover()
		Expect(r.Method).To(Equal(http.MethodPost))
		Expect(r.Header.Get("Content-Type")).To(Equal("application/x-www-form-urlencoded"))
		Expect(r.ParseForm()).To(Succeed())
		in.form = r.PostForm
		in.user, in.pass, in.basic = r.BasicAuth()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(in.status)
		_ = json.NewEncoder(w).Encode(in.answer)
	}))
	DeferCleanup(srv.Close)
	return srv
}

var _ = Describe("token introspection (RFC 7662)", func() {
	It("sends the token and its hint, authenticated in HTTP Basic, and reads active", func(ctx context.Context) {
		in := &introspector{answer: map[string]any{"active": true, "scope": "files:read"}, status: http.StatusOK}
		srv := in.serve()
		r, err := oauthclient.Introspect(ctx, srv.Client(), srv.URL+"/introspect", "rs", oauthclient.Secret{Value: "s"}, "tok", "access_token")
		Expect(err).NotTo(HaveOccurred())
		Expect(in.form).To(Equal(url.Values{"token": {"tok"}, "token_type_hint": {"access_token"}}))
		Expect([]any{in.basic, in.user, in.pass}).To(Equal([]any{true, "rs", "s"}))
		active, stated := oauthclient.Active(r)
		Expect([]bool{active, stated}).To(Equal([]bool{true, true}))
	})

	It("sends the secret in the form with client_secret_post, and no hint when there is none", func(ctx context.Context) {
		in := &introspector{answer: map[string]any{"active": false}, status: http.StatusOK}
		srv := in.serve()
		r, err := oauthclient.Introspect(ctx, srv.Client(), srv.URL, "rs", oauthclient.Secret{Value: "s", Post: true}, "tok", "")
		Expect(err).NotTo(HaveOccurred())
		Expect(in.basic).To(BeFalse())
		Expect(in.form).To(Equal(url.Values{"token": {"tok"}, "client_id": {"rs"}, "client_secret": {"s"}}))
		active, stated := oauthclient.Active(r)
		Expect([]bool{active, stated}).To(Equal([]bool{false, true}))
	})

	DescribeTable("says when an answer does not state whether the token is active",
		func(ctx context.Context, status int, answer any) {
			srv := (&introspector{answer: answer, status: status}).serve()
			r, err := oauthclient.Introspect(ctx, srv.Client(), srv.URL, "rs", oauthclient.Secret{Value: "s"}, "tok", "")
			Expect(err).NotTo(HaveOccurred())
			_, stated := oauthclient.Active(r)
			Expect(stated).To(BeFalse())
		},
		Entry("no active member", http.StatusOK, map[string]any{"scope": "x"}),
		Entry("active as a string", http.StatusOK, map[string]any{"active": "true"}),
		Entry("a refusal", http.StatusUnauthorized, map[string]any{"error": "invalid_client", "active": true}),
	)
})
