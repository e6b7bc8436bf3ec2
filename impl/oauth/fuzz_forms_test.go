package oauth_test

import (
	"fmt"
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

// fuzzServer is an OAuth server over a fresh store with the specs' owner
// secret, served in-process.
func fuzzServer(f *testing.F) (*store.Store, *http.ServeMux) {
	st, err := store.Open(filepath.Join(f.TempDir(), "host.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = st.Close() })
	if err := st.Update(func(tx *store.Tx) error { return tx.PutOwnerSecret(store.DigestOf(ownerSecret)) }); err != nil {
		f.Fatal(err)
	}
	srv, err := oauth.New(oauth.Options{Store: st, Clock: clock.NewManual(epoch), RegistrationBurst: 1 << 30})
	if err != nil {
		f.Fatal(err)
	}
	mux := http.NewServeMux()
	srv.Register(mux)
	return st, mux
}

// serve sends one request from its own source address, so the per-address
// limits never hide a path from the fuzzer.
func serve(mux *http.ServeMux, n int, method, target, contentType, cookie, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.RemoteAddr = fmt.Sprintf("10.%d.%d.%d:4000", n>>16&255, n>>8&255, n&255)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	return rec
}

// FuzzConsentForm posts arbitrary bodies to the owner sign-in and both
// consent forms, with and without the owner's session. Whatever the body,
// the answer is never a 5xx, and no decision is recorded: without the form a
// rendered page carried, neither the pending device authorization nor any
// authorization code can come out of it, so no self-approval is possible.
func FuzzConsentForm(f *testing.F) {
	for _, seed := range []string{
		"user_code=BCDF-GHJK&role=owner&action=approve&csrf=x",
		"user_code=bcdfghjk&role=guest&action=deny&csrf=",
		"response_type=code&client_id=c&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&code_challenge=" + strings.Repeat("a", 43) +
			"&code_challenge_method=S256&role=owner&action=approve&csrf=x",
		"secret=" + ownerSecret + "&return=%2Foauth%2Fdevice",
		"secret=wrong&return=https%3A%2F%2Fattacker.example%2F",
		"csrf=%zz", "user_code=" + strings.Repeat("B", 300), "", "&&&==", "action=approve&action=deny",
	} {
		for path := range uint8(3) {
			f.Add(path, true, seed)
			f.Add(path, false, seed)
		}
	}
	st, mux := fuzzServer(f)

	reg := serve(mux, 0, http.MethodPost, "/oauth/register", "application/json",
		"", `{"redirect_uris":["http://127.0.0.1/cb"]}`)
	clientID := strings.Split(strings.Split(reg.Body.String(), `"client_id":"`)[1], `"`)[0]
	start := serve(mux, 0, http.MethodPost, "/oauth/device_authorization", "application/x-www-form-urlencoded",
		"", url.Values{"client_id": {clientID}}.Encode())
	if start.Code != http.StatusOK {
		f.Fatal(start.Code, start.Body)
	}
	login := serve(mux, 0, http.MethodPost, "/oauth/login", "application/x-www-form-urlencoded",
		"", url.Values{"secret": {ownerSecret}}.Encode())
	if len(login.Result().Cookies()) != 1 {
		f.Fatal("no session", login.Code)
	}
	session := login.Result().Cookies()[0].String()

	undecided := func(t *testing.T) {
		t.Helper()
		if err := st.View(func(tx *store.Tx) error {
			if err := tx.DeviceCodes(func(_ store.Digest, dc store.DeviceCode) error {
				if dc.Status == store.DevicePending || dc.Status == store.DeviceLocked {
					return nil
				}
				return fmt.Errorf("device authorization %s", dc.Status)
			}); err != nil {
				return err
			}
			return tx.AuthCodes(func(store.Digest, store.AuthCode) error { return fmt.Errorf("an authorization code was issued") })
		}); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	f.Fuzz(func(t *testing.T, path uint8, signedIn bool, body string) {
		n++
		target := []string{"/oauth/device", "/oauth/authorize", "/oauth/login"}[path%3]
		cookie := ""
		if signedIn {
			cookie = session
		}
		rec := serve(mux, n, http.MethodPost, target, "application/x-www-form-urlencoded", cookie, body)
		if rec.Code >= 500 {
			t.Fatalf("HTTP %d for %s %q: %s", rec.Code, target, body, rec.Body)
		}
		if loc := rec.Header().Get("Location"); strings.Contains(loc, "code=") || strings.Contains(loc, "://") {
			t.Fatalf("redirected to %q for %s %q", loc, target, body)
		}
		undecided(t)
	})
}

// FuzzTokenRequest posts arbitrary form bodies to the token endpoint, where
// an approved device code waits that the fuzzer does not know. Whatever the
// body, the answer is a 4xx with an RFC 6749 error body, never a 5xx and
// never a credential.
func FuzzTokenRequest(f *testing.F) {
	for _, seed := range []string{
		"grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=x&client_id=c",
		"grant_type=device_code&device_code=",
		"grant_type=authorization_code&code=x&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&client_id=c&code_verifier=" + strings.Repeat("v", 43),
		"grant_type=refresh_token&refresh_token=" + strings.Repeat("A", 64),
		"grant_type=client_credentials", "grant_type=password&username=a&password=b",
		"grant_type=refresh_token&grant_type=refresh_token", "%zz", "", "a=" + strings.Repeat("b", 70<<10),
	} {
		f.Add(seed)
	}
	st, mux := fuzzServer(f)
	leaveApproved(f, mux)
	count := func() int {
		n := 0
		if err := st.View(func(tx *store.Tx) error {
			return tx.Credentials(func(store.Digest, store.Credential) error { n++; return nil })
		}); err != nil {
			f.Fatal(err)
		}
		return n
	}
	n := 0
	f.Fuzz(func(t *testing.T, body string) {
		n++
		rec := serve(mux, n, http.MethodPost, "/oauth/token", "application/x-www-form-urlencoded", "", body)
		if rec.Code < 400 || rec.Code >= 500 {
			t.Fatalf("HTTP %d for %q: %s", rec.Code, body, rec.Body)
		}
		if !strings.Contains(rec.Body.String(), `"error"`) {
			t.Fatalf("HTTP %d without an error body for %q: %s", rec.Code, body, rec.Body)
		}
		if count() != 0 {
			t.Fatalf("a credential was issued for %q", body)
		}
	})
}

// leaveApproved leaves one approved device authorization in the store,
// approved through the real pages as the owner.
func leaveApproved(f *testing.F, mux *http.ServeMux) {
	reg := serve(mux, 0, http.MethodPost, "/oauth/register", "application/json", "", `{"redirect_uris":["http://127.0.0.1/cb"]}`)
	clientID := strings.Split(strings.Split(reg.Body.String(), `"client_id":"`)[1], `"`)[0]
	start := serve(mux, 0, http.MethodPost, "/oauth/device_authorization", "application/x-www-form-urlencoded",
		"", url.Values{"client_id": {clientID}}.Encode())
	userCode := strings.Split(strings.Split(start.Body.String(), `"user_code":"`)[1], `"`)[0]
	login := serve(mux, 0, http.MethodPost, "/oauth/login", "application/x-www-form-urlencoded",
		"", url.Values{"secret": {ownerSecret}}.Encode())
	session := login.Result().Cookies()[0].String()
	page := serve(mux, 0, http.MethodGet, "/oauth/device?user_code="+userCode, "", session, "")
	m := csrfField.FindStringSubmatch(page.Body.String())
	if m == nil {
		f.Fatal("no consent form", page.Body)
	}
	decision := serve(mux, 0, http.MethodPost, "/oauth/device", "application/x-www-form-urlencoded", session,
		url.Values{"user_code": {userCode}, "role": {"owner"}, "action": {"approve"}, "csrf": {m[1]}}.Encode())
	if decision.Code != http.StatusOK {
		f.Fatal("approval failed", decision.Code, decision.Body)
	}
}
