package oauth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conform-mcp/conform/impl/clock"
	"github.com/conform-mcp/conform/impl/oauth"
	"github.com/conform-mcp/conform/impl/store"
)

// benchHost serves the OAuth routes in-process, without a network, so the
// numbers measure the server and its store.
type benchHost struct {
	b      *testing.B
	server *oauth.Server
	mux    *http.ServeMux
	// session is the owner's session cookie, sent to the consent page.
	session string
}

func newBenchHost(b *testing.B) *benchHost {
	st, err := store.Open(filepath.Join(b.TempDir(), "host.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	if err := st.Update(func(tx *store.Tx) error { return tx.PutOwnerSecret(store.DigestOf(ownerSecret)) }); err != nil {
		b.Fatal(err)
	}
	srv, err := oauth.New(oauth.Options{Store: st, Clock: clock.NewManual(epoch), RegistrationBurst: 1 << 20,
		DeviceBurst: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	srv.Register(mux)
	h := &benchHost{b: b, server: srv, mux: mux}
	req := httptest.NewRequest(http.MethodPost, "/oauth/login", strings.NewReader(url.Values{"secret": {ownerSecret}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	cookies := rec.Result().Cookies()
	if len(cookies) != 1 {
		b.Fatal("owner sign-in set no session cookie", rec.Code, rec.Body)
	}
	h.session = cookies[0].String()
	return h
}

func (h *benchHost) call(method, target, contentType, body string) (int, string) {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if h.session != "" {
		req.Header.Set("Cookie", h.session)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	h.mux.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

func (h *benchHost) field(body, name string) string {
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		h.b.Fatal(err, body)
	}
	s, _ := m[name].(string)
	return s
}

// approvedDeviceCode registers a client, starts a device flow and approves it
// through the consent page, returning the device_code ready to redeem.
func (h *benchHost) approvedDeviceCode(clientID string) string {
	const form = "application/x-www-form-urlencoded"
	code, body := h.call(http.MethodPost, "/oauth/device_authorization", form, "client_id="+clientID)
	if code != http.StatusOK {
		h.b.Fatal(code, body)
	}
	deviceCode, userCode := h.field(body, "device_code"), h.field(body, "user_code")
	_, page := h.call(http.MethodGet, "/oauth/device?user_code="+userCode, "", "")
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		h.b.Fatal("no csrf field", page)
	}
	decision := url.Values{"user_code": {userCode}, "role": {"owner"}, "action": {"approve"}, "csrf": {m[1]}}
	if code, body := h.call(http.MethodPost, "/oauth/device", form, decision.Encode()); code != http.StatusOK {
		h.b.Fatal(code, body)
	}
	return deviceCode
}

func (h *benchHost) register() string {
	code, body := h.call(http.MethodPost, "/oauth/register", "application/json", `{"redirect_uris":["http://127.0.0.1/cb"]}`)
	if code != http.StatusCreated {
		h.b.Fatal(code, body)
	}
	return h.field(body, "client_id")
}

func BenchmarkVerify(b *testing.B) {
	h := newBenchHost(b)
	clientID := h.register()
	deviceCode := h.approvedDeviceCode(clientID)
	code, body := h.call(http.MethodPost, "/oauth/token", "application/x-www-form-urlencoded",
		"grant_type=device_code&device_code="+deviceCode+"&client_id="+clientID)
	if code != http.StatusOK {
		b.Fatal(code, body)
	}
	token := h.field(body, "access_token")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.server.Verify(ctx, token); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyForeign(b *testing.B) {
	h := newBenchHost(b)
	other := newBenchHost(b)
	clientID := other.register()
	deviceCode := other.approvedDeviceCode(clientID)
	_, body := other.call(http.MethodPost, "/oauth/token", "application/x-www-form-urlencoded",
		"grant_type=device_code&device_code="+deviceCode+"&client_id="+clientID)
	token := other.field(body, "access_token")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.server.Verify(ctx, token); err == nil {
			b.Fatal("accepted another instance's credential")
		}
	}
}

func BenchmarkDeviceTokenExchange(b *testing.B) {
	h := newBenchHost(b)
	clientID := h.register()
	codes := make([]string, b.N)
	for i := range codes {
		codes[i] = h.approvedDeviceCode(clientID)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		code, body := h.call(http.MethodPost, "/oauth/token", "application/x-www-form-urlencoded",
			"grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code="+codes[i]+"&client_id="+clientID)
		if code != http.StatusOK {
			b.Fatal(code, body)
		}
	}
}
