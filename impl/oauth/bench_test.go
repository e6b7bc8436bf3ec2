package oauth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
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
	srv, err := oauth.New(oauth.Options{Store: st, Clock: clock.NewManual(epoch), RegistrationBurst: 1 << 20, TokenBurst: 1 << 20,
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

// BenchmarkTokenUnknownDeviceCode is the anonymous token request an attacker
// can send without registering: a device code that was never issued. It
// reports the bytes the process wrote (disk-B/op): the answer goes to a
// recorder and the log is discarded, so every byte written is the store's.
func BenchmarkTokenUnknownDeviceCode(b *testing.B) {
	h := newBenchHost(b)
	body := "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=never-issued&client_id=nobody"
	before, measured := bytesWritten()
	b.ReportAllocs()
	for b.Loop() {
		if code, out := h.call(http.MethodPost, "/oauth/token", "application/x-www-form-urlencoded", body); code != http.StatusBadRequest {
			b.Fatal(code, out)
		}
	}
	if after, ok := bytesWritten(); measured && ok {
		b.ReportMetric(float64(after-before)/float64(b.N), "disk-B/op")
	}
}

// bytesWritten is what this process has written so far (wchar of
// /proc/self/io), and false where the kernel does not say.
func bytesWritten() (int64, bool) {
	raw, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(raw)) {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
