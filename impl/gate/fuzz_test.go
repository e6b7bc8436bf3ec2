package gate_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/conform-mcp/conform/impl/gate"
)

// anonymousMethods are the methods source 5.3 (and the reference host's
// choice, PRODUCT.md section 6) lets an anonymous caller use.
var anonymousMethods = []string{"initialize", "notifications/initialized", "tools/list", "resources/list", "prompts/list", "tools/call"}

var anonymousTools = []string{"afs_read", "afs_list", "afs_stat"}

// allowed reports whether a decoded JSON-RPC message may pass gate 1 anonymously.
func allowed(msg map[string]any) bool {
	method, _ := msg["method"].(string)
	if !slices.Contains(anonymousMethods, method) {
		return false
	}
	if method != "tools/call" {
		return true
	}
	params, _ := msg["params"].(map[string]any)
	name, _ := params["name"].(string)
	return slices.Contains(anonymousTools, name)
}

// FuzzAnonymousBody holds the gate to source 5.3 and 5.4 for any body: an
// anonymous request reaches the tools only if every message in it is on the
// allowlist, and every refusal is a 4xx, never a panic.
func FuzzAnonymousBody(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"afs_read","arguments":{"path":"/public/readme.md"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"afs_write","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"afs_read","name":"afs_write"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"afs_write"}}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"afs_\u0072ead"}}`,
		`{"jsonrpc":"2.0","id":1,"method":`,
		`[]`, `null`, `"tools/list"`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		reached := false
		next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			reached = true
			w.WriteHeader(http.StatusOK)
		})
		h := gate.New(next, gate.Config{Verifier: staticVerifier{}, AnonymousTools: anonymousTools})
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		if !reached {
			if rec.Code < 400 || rec.Code > 499 {
				t.Fatalf("refused with status %d, want a 4xx", rec.Code)
			}
			return
		}
		var batch []map[string]any
		var single map[string]any
		switch {
		case json.Unmarshal(body, &batch) == nil && len(batch) > 0:
		case json.Unmarshal(body, &single) == nil && single != nil:
			batch = []map[string]any{single}
		default:
			t.Fatalf("passed a body that is not a JSON-RPC message: %q", body)
		}
		for _, msg := range batch {
			if !allowed(msg) {
				t.Fatalf("passed an anonymous message off the allowlist: %q", body)
			}
		}
	})
}
