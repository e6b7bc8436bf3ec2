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

var _ = Describe("Client ID Metadata Documents", func() {
	DescribeTable("take as a metadata URL only an https URL with a path",
		func(id string, want bool) { Expect(isMetadataClientID(id)).To(Equal(want)) },
		Entry("a document URL", "https://app.example/oauth/client.json", true),
		Entry("a registered client_id", "c0ffee", false),
		Entry("plain http", "http://app.example/client.json", false),
		Entry("no path", "https://app.example", false),
		Entry("a fragment", "https://app.example/client.json#x", false),
		Entry("credentials", "https://u:p@app.example/client.json", false),
		Entry("a dot segment", "https://app.example/a/../client.json", false),
	)

	DescribeTable("dial only public addresses",
		func(addr string, public bool) {
			err := publicOnly("tcp", addr, nil)
			if public {
				Expect(err).NotTo(HaveOccurred())
			} else {
				Expect(err).To(MatchError(errPrivateAddress))
			}
		},
		Entry("loopback", "127.0.0.1:443", false),
		Entry("IPv6 loopback", "[::1]:443", false),
		Entry("a private network", "10.1.2.3:443", false),
		Entry("link-local (cloud metadata)", "169.254.169.254:80", false),
		Entry("unspecified", "0.0.0.0:443", false),
		Entry("a public address", "93.184.216.34:443", true),
		Entry("a public IPv6 address", "[2606:2800:220:1:248:1893:25c8:1946]:443", true),
		Entry("a public address mapped into IPv6", "[::ffff:93.184.216.34]:443", true),
		Entry("a private address mapped into IPv6", "[::ffff:10.1.2.3]:443", false),
		Entry("loopback mapped into IPv6", "[::ffff:127.0.0.1]:443", false),
		Entry("this network", "0.1.2.3:443", false),
		Entry("shared address space (carrier-grade NAT)", "100.64.0.1:443", false),
		Entry("the top of shared address space", "100.127.255.254:443", false),
		Entry("just past shared address space", "100.128.0.1:443", true),
		Entry("IETF protocol assignments", "192.0.0.8:443", false),
		Entry("benchmarking", "198.18.0.1:443", false),
		Entry("the top of benchmarking", "198.19.255.254:443", false),
		Entry("reserved", "240.0.0.1:443", false),
		Entry("limited broadcast", "255.255.255.255:443", false),
		Entry("multicast", "224.0.0.1:443", false),
		Entry("IPv6 unique local", "[fd00::1]:443", false),
		Entry("IPv6 link-local with a zone", "[fe80::1%eth0]:443", false),
		Entry("IPv6 unspecified", "[::]:443", false),
		Entry("IPv4-compatible IPv6 of loopback", "[::127.0.0.1]:443", false),
		Entry("IPv4-compatible IPv6 of a private address", "[::10.1.2.3]:443", false),
		Entry("IPv4-translated IPv6", "[::ffff:0:10.1.2.3]:443", false),
		Entry("NAT64 of a private address", "[64:ff9b::10.1.2.3]:443", false),
		Entry("local-use NAT64", "[64:ff9b:1::a01:203]:443", false),
		Entry("6to4 of a private address", "[2002:a01:203::1]:443", false),
		Entry("Teredo", "[2001:0:a01:203::1]:443", false),
		Entry("not an address", "app.example:443", false),
	)

	Describe("fetching a document", func() {
		var (
			srv  *httptest.Server
			docs map[string]string
			f    *cimdFetcher
		)
		BeforeEach(func() {
			docs = map[string]string{}
			srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/moved.json" {
					http.Redirect(w, r, "/client.json", http.StatusFound)
					return
				}
				body, ok := docs[r.URL.Path]
				if !ok {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(body))
			}))
			DeferCleanup(srv.Close)
			// The test server is on loopback, which the real fetcher refuses.
			f = &cimdFetcher{hc: srv.Client()}
			f.hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		})
		doc := func(path string, fields map[string]any) string {
			id := srv.URL + path
			if _, ok := fields["client_id"]; !ok {
				fields["client_id"] = id
			}
			b, _ := json.Marshal(fields)
			docs[path] = string(b)
			return id
		}

		It("accepts a document that names itself and a redirect URI", func(ctx context.Context) {
			id := doc("/client.json", map[string]any{"client_name": "App", "redirect_uris": []string{"http://127.0.0.1:9000/cb"}})
			d, err := f.fetch(ctx, id)
			Expect(err).NotTo(HaveOccurred())
			Expect(d.RedirectURIs).To(Equal([]string{"http://127.0.0.1:9000/cb"}))
		})

		DescribeTable("refuses a document it cannot trust",
			func(ctx context.Context, fields map[string]any, message string) {
				id := doc("/client.json", fields)
				_, err := f.fetch(ctx, id)
				Expect(err).To(MatchError(ContainSubstring(message)))
			},
			Entry("another client's URL", map[string]any{"client_id": "https://other.example/client.json", "redirect_uris": []string{"https://app.example/cb"}}, "not its own URL"),
			Entry("no redirect URIs", map[string]any{}, "no redirect_uris"),
			Entry("a redirect URI the host refuses", map[string]any{"redirect_uris": []string{"http://app.example/cb"}}, "redirect_uris must be https"),
			Entry("a confidential client", map[string]any{"redirect_uris": []string{"https://app.example/cb"}, "token_endpoint_auth_method": "client_secret_basic"}, "only none"),
			Entry("a body beyond the bound", map[string]any{"redirect_uris": []string{"https://app.example/cb"}, "client_name": strings.Repeat("x", cimdMaxBytes)}, "larger than"),
		)

		It("follows no redirect", func(ctx context.Context) {
			doc("/client.json", map[string]any{"redirect_uris": []string{"https://app.example/cb"}})
			_, err := f.fetch(ctx, srv.URL+"/moved.json")
			Expect(err).To(MatchError(ContainSubstring("answered 302")))
		})

		It("lets the owner approve an authorization request of a metadata client, and stores the client", func(ctx context.Context) {
			st, err := store.Open(filepath.Join(GinkgoT().TempDir(), "oauth.db"))
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(st.Close)
			Expect(st.Update(func(tx *store.Tx) error { return tx.PutOwnerSecret(store.DigestOf("owner-secret")) })).To(Succeed())
			s, err := New(Options{Store: st})
			Expect(err).NotTo(HaveOccurred())
			s.cimd = f
			id := doc("/client.json", map[string]any{"client_name": "Metadata App", "redirect_uris": []string{"http://127.0.0.1:9000/cb"}})
			mux := http.NewServeMux()
			s.Register(mux)
			host := httptest.NewServer(mux)
			DeferCleanup(host.Close)
			q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {"http://127.0.0.1:9000/cb"},
				"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"}}
			loc, err := ApproveAuthorization(ctx, host.Client(), host.URL, host.URL+"/oauth/authorize?"+q.Encode(), "owner-secret", "member")
			Expect(err).NotTo(HaveOccurred())
			Expect(loc).To(HavePrefix("http://127.0.0.1:9000/cb?"))
			Expect(loc).To(ContainSubstring("code="))
			Expect(st.View(func(tx *store.Tx) error {
				c, ok, err := tx.Client(id)
				Expect(ok).To(BeTrue())
				Expect(c.RedirectURIs).To(Equal([]string{"http://127.0.0.1:9000/cb"}))
				return err
			})).To(Succeed())
		})
	})
})
