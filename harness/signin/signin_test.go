package signin_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/registrations"
	"github.com/conform-mcp/conform/harness/signin"
	"github.com/conform-mcp/conform/harness/target"
)

// host answers registration and device authorization, then the token
// endpoint from a script of replies, one per poll.
func host(polls []map[string]any, approvedCode *string) *httptest.Server {
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("POST /oauth/register", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 201, map[string]any{"client_id": "c1"})
	})
	mux.HandleFunc("POST /oauth/device_authorization", func(w http.ResponseWriter, r *http.Request) {
		Expect(r.ParseForm()).To(Succeed())
		Expect(r.PostForm.Get("client_id")).To(Equal("c1"))
		reply(w, 200, map[string]any{"device_code": "d1", "user_code": "BCDF-GHJK", "interval": 2})
	})
	mux.HandleFunc("POST /oauth/token", func(w http.ResponseWriter, r *http.Request) {
		Expect(r.ParseForm()).To(Succeed())
		Expect(r.PostForm.Get("grant_type")).To(Equal(oauthclient.DeviceGrantType))
		Expect(r.PostForm.Get("device_code")).To(Equal("d1"))
		Expect(*approvedCode).To(Equal("BCDF-GHJK"), "polled before the approval")
		next := polls[0]
		polls = polls[1:]
		status := 400
		if _, ok := next["access_token"]; ok {
			status = 200
		}
		reply(w, status, next)
	})
	return httptest.NewServer(mux)
}

var endpoints = oauthclient.Endpoints{Register: "/oauth/register", Token: "/oauth/token", DeviceAuthorization: "/oauth/device_authorization"}

var _ = Describe("signing in through the device grant without a person", func() {
	var approved string
	approve := func(_ context.Context, code string) error { approved = code; return nil }
	BeforeEach(func() { approved = "" })

	It("polls on authorization_pending and adds five seconds on slow_down (RFC 8628 section 3.5)", func(ctx context.Context) {
		srv := host([]map[string]any{
			{"error": "authorization_pending"},
			{"error": "slow_down"},
			{"access_token": "tok", "token_type": "Bearer"},
		}, &approved)
		DeferCleanup(srv.Close)
		var waits []time.Duration
		sleep := func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
		token, err := signin.Device(ctx, oauthclient.New(srv.URL, endpoints, nil), approve, sleep, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(token).To(Equal("tok"))
		Expect(waits).To(Equal([]time.Duration{2 * time.Second, 7 * time.Second}))
	})

	It("stops at any other error, saying what the host answered", func(ctx context.Context) {
		srv := host([]map[string]any{{"error": "access_denied"}}, &approved)
		DeferCleanup(srv.Close)
		_, err := signin.Device(ctx, oauthclient.New(srv.URL, endpoints, nil), approve, target.Sleep, nil)
		Expect(err).To(MatchError(ContainSubstring("access_denied")))
	})

	It("stops when the approver cannot approve", func(ctx context.Context) {
		srv := host(nil, &approved)
		DeferCleanup(srv.Close)
		refuse := func(context.Context, string) error { return errors.New("no consent page") }
		_, err := signin.Device(ctx, oauthclient.New(srv.URL, endpoints, nil), refuse, target.Sleep, nil)
		Expect(err).To(MatchError("no consent page"))
	})
})

// registry is a host that knows the clients it registered, refuses a
// device authorization for any other (invalid_client), and issues a
// credential at the first poll.
type registry struct {
	mu    sync.Mutex
	known map[string]bool
	// registered counts the registrations it accepted.
	registered int
}

func (g *registry) serve() *httptest.Server {
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("POST /oauth/register", func(w http.ResponseWriter, _ *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.registered++
		id := fmt.Sprintf("c%d", g.registered)
		g.known[id] = true
		reply(w, 201, map[string]any{"client_id": id})
	})
	mux.HandleFunc("POST /oauth/device_authorization", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if !g.known[r.FormValue("client_id")] {
			reply(w, 400, map[string]any{"error": "invalid_client"})
			return
		}
		reply(w, 200, map[string]any{"device_code": "d1", "user_code": "BCDF-GHJK"})
	})
	mux.HandleFunc("POST /oauth/token", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, 200, map[string]any{"access_token": "tok", "token_type": "Bearer"})
	})
	return httptest.NewServer(mux)
}

var _ = Describe("a sign-in with the clients kept in the state directory", func() {
	approve := func(context.Context, string) error { return nil }
	var (
		g    *registry
		srv  *httptest.Server
		dir  string
		key  registrations.Key
		sign func(ctx context.Context) string
	)
	BeforeEach(func() {
		g = &registry{known: map[string]bool{}}
		srv = g.serve()
		DeferCleanup(srv.Close)
		dir = GinkgoT().TempDir()
		key = registrations.Key{Server: srv.URL + "/oauth/register", RedirectURI: oauthclient.DeviceRedirectURI, Use: registrations.DeviceSignIn}
		sign = func(ctx context.Context) string {
			GinkgoHelper()
			// Each run opens the store afresh, as conform run does.
			token, err := signin.Device(ctx, oauthclient.New(srv.URL, endpoints, nil), approve, target.Sleep, registrations.Open(dir, GinkgoWriter))
			Expect(err).NotTo(HaveOccurred())
			return token
		}
	})

	It("registers in the first run only, and keeps the client_id (source 7.3)", func(ctx context.Context) {
		Expect(sign(ctx)).To(Equal("tok"))
		Expect(sign(ctx)).To(Equal("tok"))
		Expect(g.registered).To(Equal(1))
		c, _, ok := registrations.Open(dir, GinkgoWriter).Get(key)
		Expect(ok).To(BeTrue())
		Expect(c.ID).To(Equal("c1"))
	})

	It("registers anew, silently, when the host no longer knows the kept client, and keeps the new one", func(ctx context.Context) {
		registrations.Open(dir, GinkgoWriter).Keep(key, registrations.Client{ID: "removed"})
		Expect(sign(ctx)).To(Equal("tok"))
		Expect(g.registered).To(Equal(1))
		c, _, _ := registrations.Open(dir, GinkgoWriter).Get(key)
		Expect(c.ID).To(Equal("c1"))
		Expect(sign(ctx)).To(Equal("tok"))
		Expect(g.registered).To(Equal(1))
	})
})
