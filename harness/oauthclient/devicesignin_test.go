package oauthclient_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/oauthclient"
)

// signInHost registers the client "new", knows no other, and issues the
// token once the user code was approved.
func signInHost(approved *bool) *httptest.Server {
	mux := http.NewServeMux()
	answer := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("POST /oauth/register", func(w http.ResponseWriter, _ *http.Request) {
		answer(w, http.StatusCreated, map[string]any{"client_id": "new"})
	})
	mux.HandleFunc("POST /oauth/device_authorization", func(w http.ResponseWriter, r *http.Request) {
		if r.FormValue("client_id") != "new" {
			answer(w, http.StatusBadRequest, map[string]any{"error": "invalid_client"})
			return
		}
		answer(w, http.StatusOK, map[string]any{"device_code": "d", "user_code": "U", "verification_uri": "https://h/device", "expires_in": 600})
	})
	mux.HandleFunc("POST /oauth/token", func(w http.ResponseWriter, _ *http.Request) {
		if !*approved {
			answer(w, http.StatusBadRequest, map[string]any{"error": "authorization_pending"})
			return
		}
		answer(w, http.StatusOK, map[string]any{"access_token": "tok", "token_type": "Bearer"})
	})
	srv := httptest.NewServer(mux)
	DeferCleanup(srv.Close)
	return srv
}

var _ = Describe("a device sign-in", func() {
	It("registers again when the host no longer knows the kept client, and tells both", func(ctx context.Context) {
		approved := false
		srv := signInHost(&approved)
		var forgotten, registered []string
		s := oauthclient.DeviceSignIn{
			Client:     oauthclient.New(srv.URL, endpoints, srv.Client()),
			ClientName: "conform",
			ClientID:   "old",
			Registered: func(id string) error { registered = append(registered, id); return nil },
			Forgotten:  func(id string) { forgotten = append(forgotten, id) },
			Present: func(_ context.Context, da *oauthclient.DeviceAuthorization) error {
				Expect(da.UserCode).To(Equal("U"))
				Expect(da.VerificationURI).To(Equal("https://h/device"))
				Expect(da.Expiry).To(BeTemporally("~", time.Now().Add(600*time.Second), time.Minute))
				approved = true
				return nil
			},
			Sleep: func(context.Context, time.Duration) error { return nil },
		}
		token, err := s.Run(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(token).To(Equal("tok"))
		Expect(forgotten).To(Equal([]string{"old"}))
		Expect(registered).To(Equal([]string{"new"}))
		Expect(s.ClientID).To(Equal("new"))
	})

	It("stops after MaxPolls when the approval never completes", func(ctx context.Context) {
		approved := false
		srv := signInHost(&approved)
		s := oauthclient.DeviceSignIn{
			Client:   oauthclient.New(srv.URL, endpoints, srv.Client()),
			Present:  func(context.Context, *oauthclient.DeviceAuthorization) error { return nil },
			Sleep:    func(context.Context, time.Duration) error { return nil },
			MaxPolls: 3,
		}
		_, err := s.Run(ctx)
		Expect(err).To(MatchError(ContainSubstring("still pending after 3 polls")))
	})

	It("stops when the device code expired before the approval", func(ctx context.Context) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			switch r.URL.Path {
			case "/oauth/register":
				w.WriteHeader(http.StatusCreated)
				_, _ = w.Write([]byte(`{"client_id":"c"}`))
			case "/oauth/device_authorization":
				_, _ = w.Write([]byte(`{"device_code":"d","user_code":"U","verification_uri":"https://h/device","expires_in":1}`))
			default:
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"authorization_pending"}`))
			}
		}))
		DeferCleanup(srv.Close)
		s := oauthclient.DeviceSignIn{
			Client:  oauthclient.New(srv.URL, endpoints, srv.Client()),
			Present: func(context.Context, *oauthclient.DeviceAuthorization) error { return nil },
			// The wait is real: the expiry is read off the wall clock.
			Sleep: func(ctx context.Context, _ time.Duration) error { time.Sleep(300 * time.Millisecond); return ctx.Err() },
		}
		_, err := s.Run(ctx)
		Expect(err).To(MatchError(oauthclient.ErrDeviceCodeExpired))
	})
})
