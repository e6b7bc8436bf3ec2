package scripted

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/conform-mcp/conform/harness/fakehost"
)

// The variants of the source pack's scripted server, fakehost: one origin
// serving the MCP endpoint, registration, the device grant and the
// protected resource metadata, approving every user code as soon as it is
// issued (conform is the person at the verification page).
const (
	// DeviceCodeRejected answers the first device access token request
	// invalid_grant, as for a device code whose window has passed.
	DeviceCodeRejected Variant = "device-code-rejected"
)

// pollInterval is the device flow's polling interval in seconds, the
// shortest RFC 8628 allows a server to ask for, so that runs are quick.
const pollInterval = 1

// source is the state of one fakehost-based scripted server.
type source struct {
	v     Variant
	oauth *fakehost.OAuth
	mu    sync.Mutex
	// rejected is set once DeviceCodeRejected has refused a device code.
	rejected bool
}

// StartSource starts the source pack's scripted server, named name in log.
func StartSource(name string, v Variant, log *Log) (*Server, error) {
	host := fakehost.New(fakehost.MCPOptions{})
	s := &source{v: v, oauth: fakehost.NewOAuth(fakehost.OAuthOptions{Host: host, Interval: pollInterval})}
	s.oauth.Mount(host.Mux())
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.reject(r) {
			// The source's own text for it (7.3).
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"invalid_grant","error_description":"Invalid or expired device_code"}`))
			return
		}
		host.Handler().ServeHTTP(w, r)
	})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record(log, name, "mcp", r, w, next, s.adjust)
	}))
	if err := start(srv); err != nil {
		return nil, err
	}
	return &Server{
		Name:      name,
		Endpoint:  srv.URL + "/mcp",
		Issuer:    srv.URL,
		Resource:  srv.URL + "/mcp",
		Origins:   map[string]string{"mcp": srv.URL, "as": srv.URL},
		Metadata:  srv.URL + "/.well-known/oauth-protected-resource",
		Tool:      "afs_write",
		Args:      `{"path":"/overlay/scratch.txt","content":"written by conform"}`,
		ErrorArgs: `{"path":"/base/notes.txt","content":"written by conform"}`,
		close:     srv.Close,
		revoke:    host.RevokeIssued,
	}, nil
}

// reject says whether to refuse this request as DeviceCodeRejected's first
// device access token request.
func (s *source) reject(r *http.Request) bool {
	if s.v != DeviceCodeRejected || r.Method != http.MethodPost || r.URL.Path != "/oauth/token" {
		return false
	}
	if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "device_code" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	first := !s.rejected
	s.rejected = true
	return first
}

// adjust approves each user code as its device authorization is answered.
func (s *source) adjust(r *http.Request, status int, _ http.Header, body []byte) []byte {
	if r.URL.Path == "/oauth/device_authorization" && status == http.StatusOK {
		var d struct {
			UserCode string `json:"user_code"`
		}
		if json.Unmarshal(body, &d) == nil && d.UserCode != "" {
			_ = s.oauth.Approve(context.Background(), d.UserCode)
		}
	}
	return body
}
