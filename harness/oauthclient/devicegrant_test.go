package oauthclient_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/oauthclient"
)

// grantHost takes the device grant by the names in takes only, and serves
// authorization server metadata advertising advertised when it is not nil:
// as RFC 8414's document, or, with openID, as OpenID Connect Discovery's
// only. It records every grant_type it is sent.
type grantHost struct {
	takes, advertised []string
	openID            bool
	mu                sync.Mutex
	sent              []string
}

func (g *grantHost) serve() *httptest.Server {
	mux := http.NewServeMux()
	answer := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	if g.advertised != nil {
		path := "GET /.well-known/oauth-authorization-server"
		if g.openID {
			path = "GET /.well-known/openid-configuration"
		}
		mux.HandleFunc(path, func(w http.ResponseWriter, _ *http.Request) {
			answer(w, 200, map[string]any{"grant_types_supported": g.advertised})
		})
	}
	mux.HandleFunc("POST /oauth/token", func(w http.ResponseWriter, r *http.Request) {
		Expect(r.ParseForm()).To(Succeed())
		grant := r.PostForm.Get("grant_type")
		g.mu.Lock()
		g.sent = append(g.sent, grant)
		g.mu.Unlock()
		if !slices.Contains(g.takes, grant) {
			answer(w, 400, map[string]string{"error": "unsupported_grant_type", "error_description": "no"})
			return
		}
		answer(w, 400, map[string]string{"error": "authorization_pending", "error_description": "wait"})
	})
	srv := httptest.NewServer(mux)
	DeferCleanup(srv.Close)
	return srv
}

var _ = Describe("the device grant's name", func() {
	const urn = oauthclient.DeviceGrantType
	const short = oauthclient.ShortDeviceGrantType

	DescribeTable("is the one the host takes, learned once",
		func(g *grantHost, want, how string, firstSent []string) {
			srv := g.serve()
			grant := oauthclient.New(srv.URL, endpoints, srv.Client()).DeviceGrant()
			for range 2 {
				r, err := grant.Token(context.Background(), url.Values{"device_code": {"d"}})
				Expect(err).NotTo(HaveOccurred())
				code, _ := r.String("error")
				Expect(code).To(Equal("authorization_pending"))
			}
			name, learned := grant.Name()
			Expect(name).To(Equal(want))
			Expect(learned).To(Equal(how))
			Expect(g.sent).To(Equal(append(firstSent, want)), "the second request goes straight to the learned name")
		},
		Entry("advertised in grant_types_supported", &grantHost{takes: []string{short}, advertised: []string{"authorization_code", short}},
			short, "advertised in grant_types_supported", []string{short}),
		Entry("advertised in OpenID Connect Discovery's document, the fallback MCP's discovery order gives",
			&grantHost{takes: []string{short}, advertised: []string{short}, openID: true},
			short, "advertised in grant_types_supported", []string{short}),
		Entry("the URN, when nothing is advertised and the host takes it", &grantHost{takes: []string{urn}},
			urn, "answered, not as unsupported_grant_type", []string{urn}),
		Entry("device_code, when the URN is answered unsupported_grant_type", &grantHost{takes: []string{short}},
			short, "the URN was answered unsupported_grant_type", []string{urn, short}),
	)
})
