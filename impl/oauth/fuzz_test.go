package oauth_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conform-mcp/conform/impl/clock"
	"github.com/conform-mcp/conform/impl/oauth"
	"github.com/conform-mcp/conform/impl/store"
)

// FuzzRegister holds registration to "bad input gets a clear error and loses
// nothing": whatever the body, the answer is 201 or a 4xx with an RFC 6749
// error body, never a 5xx, and a refused request stores no client.
func FuzzRegister(f *testing.F) {
	for _, seed := range []string{
		`{"redirect_uris":["https://app.example/cb"]}`,
		`{"redirect_uris":["http://[::1]:8080/cb"],"client_name":"x"}`,
		`{"redirect_uris":["com.example.app:/cb"]}`,
		`{"redirect_uris":["http://app.example/cb"]}`,
		`{"redirect_uris":["https://user@app.example/cb#frag"]}`,
		`{"redirect_uris":"https://app.example/cb"}`,
		`{"redirect_uris":[1,2]}`,
		`{"redirect_uris":[]}`,
		`{}`, `[]`, `null`, `{"redirect_uris":`, ``,
		`{"redirect_uris":["https://a.example/cb"],"redirect_uris":["https://b.example/cb"]}`,
		`{"redirect_uris":["https://a.example/cb"],"x":{"k":[{"k":1,"k":2}]}}`,
		`{"redirect_uris":["http://127.0.0.1:99999/cb"]}`,
	} {
		f.Add(seed)
	}
	st, err := store.Open(filepath.Join(f.TempDir(), "host.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = st.Close() })
	srv, err := oauth.New(oauth.Options{Store: st, Clock: clock.NewManual(epoch), RegistrationBurst: 1 << 30})
	if err != nil {
		f.Fatal(err)
	}
	mux := http.NewServeMux()
	srv.Register(mux)
	count := func() int {
		n := 0
		if err := st.View(func(tx *store.Tx) error {
			return tx.Clients(func(store.Client) error { n++; return nil })
		}); err != nil {
			f.Fatal(err)
		}
		return n
	}
	f.Fuzz(func(t *testing.T, body string) {
		before := count()
		req := httptest.NewRequest(http.MethodPost, "/oauth/register", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		switch {
		case rec.Code == http.StatusCreated:
			if count() != before+1 {
				t.Fatalf("201 without exactly one stored client for %q", body)
			}
		case rec.Code >= 400 && rec.Code < 500:
			if !strings.Contains(rec.Body.String(), `"error"`) {
				t.Fatalf("HTTP %d without an error body for %q: %s", rec.Code, body, rec.Body)
			}
			if count() != before {
				t.Fatalf("HTTP %d stored a client for %q", rec.Code, body)
			}
		default:
			t.Fatalf("HTTP %d for %q: %s", rec.Code, body, rec.Body)
		}
	})
}
