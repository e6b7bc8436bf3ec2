package oauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/store"
)

var _ = Describe("resource indicators (RFC 8707)", func() {
	var host *httptest.Server
	BeforeEach(func() {
		st, err := store.Open(filepath.Join(GinkgoT().TempDir(), "oauth.db"))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(st.Close)
		Expect(st.Update(func(tx *store.Tx) error { return tx.PutOwnerSecret(store.DigestOf("owner-secret")) })).To(Succeed())
		s, err := New(Options{Store: st})
		Expect(err).NotTo(HaveOccurred())
		mux := http.NewServeMux()
		s.Register(mux)
		host = httptest.NewServer(mux)
		DeferCleanup(host.Close)
	})

	authorize := func(ctx context.Context, resource string) string {
		resp, err := host.Client().Post(host.URL+"/oauth/register", "application/json",
			strings.NewReader(`{"redirect_uris":["http://127.0.0.1:9000/cb"],"grant_types":["authorization_code"]}`))
		Expect(err).NotTo(HaveOccurred())
		var reg struct {
			ClientID string `json:"client_id"`
		}
		Expect(json.NewDecoder(resp.Body).Decode(&reg)).To(Succeed())
		q := url.Values{"response_type": {"code"}, "client_id": {reg.ClientID}, "redirect_uri": {"http://127.0.0.1:9000/cb"},
			"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"}, "resource": {resource}}
		loc, err := ApproveAuthorization(ctx, host.Client(), host.URL, host.URL+"/oauth/authorize?"+q.Encode(), "owner-secret", "owner")
		Expect(err).NotTo(HaveOccurred())
		return loc
	}

	It("issues a code for the host's own MCP endpoint, in any case of scheme and host and with a trailing slash", func(ctx context.Context) {
		Expect(authorize(ctx, host.URL+"/mcp")).To(ContainSubstring("code="))
		Expect(authorize(ctx, strings.ToUpper(host.URL)+"/mcp/")).To(ContainSubstring("code="))
	})

	It("refuses an authorization request for another resource with invalid_target", func(ctx context.Context) {
		loc := authorize(ctx, "https://other.example/mcp")
		Expect(loc).To(HavePrefix("http://127.0.0.1:9000/cb?"))
		Expect(loc).To(ContainSubstring("error=invalid_target"))
		Expect(loc).NotTo(ContainSubstring("code="))
	})

	It("refuses a token request for another resource with invalid_target", func() {
		resp, err := host.Client().PostForm(host.URL+"/oauth/token", url.Values{"grant_type": {"authorization_code"},
			"code": {"x"}, "client_id": {"y"}, "redirect_uri": {"http://127.0.0.1:9000/cb"}, "code_verifier": {strings.Repeat("v", 43)},
			"resource": {"https://other.example/mcp"}})
		Expect(err).NotTo(HaveOccurred())
		var body map[string]any
		Expect(json.NewDecoder(resp.Body).Decode(&body)).To(Succeed())
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(body).To(HaveKeyWithValue("error", "invalid_target"))
	})
})
