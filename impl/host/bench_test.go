package host_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/conform-mcp/conform/impl/config"
	"github.com/conform-mcp/conform/impl/host"
)

// BenchmarkAnonymousRead measures an anonymous tools/call afs_read through
// the gate, the SDK's handler and the file system, without a network.
func BenchmarkAnonymousRead(b *testing.B) {
	cfg, err := config.Default()
	if err != nil {
		b.Fatal(err)
	}
	h, err := host.New(cfg, host.Options{DataDir: b.TempDir(), Auth: fakeAuthority{}})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	handler := h.Handler()
	const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"afs_read","arguments":{"path":"/public/readme.md"}}}`
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "# Public readme") {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}
