package host_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// batchOf is a JSON-RPC batch of n tools/call messages of tool with
// arguments, ids 1 to n.
func batchOf(n int, tool string, arguments any) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strings.Replace(callBody(tool, arguments), `"id":1`, fmt.Sprintf(`"id":%d`, i+1), 1)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// Issue 15 item 1: every call was bounded, the request was not. A 2025-03-26
// batch (no MCP-Protocol-Version header) is answered whole or refused whole.
var _ = Describe("The work of one request as a whole (issue 15 item 1)", func() {
	var (
		srv     *httptest.Server
		dataDir string
	)

	BeforeEach(func() {
		dataDir = GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(dataDir, "overlay", "tree"), 0o700)).To(Succeed())
		// A MiB of "<", which JSON writes as six bytes each.
		Expect(os.WriteFile(filepath.Join(dataDir, "overlay", "lt.txt"), []byte(strings.Repeat("<", 1<<20)), 0o600)).To(Succeed())
		line := "lorem ipsum dolor sit amet\n"
		for i := range 2 {
			Expect(os.WriteFile(filepath.Join(dataDir, "overlay", "tree", fmt.Sprintf("f%d.txt", i)), []byte(strings.Repeat(line, 1_000_000/len(line))), 0o600)).To(Succeed())
		}
		cfg := defaultConfig()
		// These specs are about bytes; the anonymous time bound has its own.
		cfg.Limits.AnonymousRequestTimeout = time.Minute
		srv = startHost(cfg, dataDir)
	})

	expectRefused := func(ex exchange, message string) {
		GinkgoHelper()
		Expect(ex.status).To(Equal(http.StatusBadRequest))
		Expect(ex.header.Get("Content-Type")).To(Equal("application/json"))
		Expect(string(ex.body)).To(MatchJSON(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"` + message + `"}}`))
	}

	It("answers a small batch whole", func() {
		ex := post(srv, "", batchOf(3, "afs_read", map[string]any{"path": "/public/readme.md"}))
		Expect(ex.status).To(Equal(http.StatusOK))
		var replies []struct {
			ID     int        `json:"id"`
			Result toolResult `json:"result"`
		}
		Expect(json.Unmarshal(ex.body, &replies)).To(Succeed())
		Expect(replies).To(HaveLen(3))
		for _, r := range replies {
			Expect(text(r.Result)).To(ContainSubstring("# Public readme"))
		}
	})

	It("answers one read of the whole MiB: one call always fits", func() {
		r := callTool(srv, "", "afs_read", map[string]any{"path": "/overlay/lt.txt"})
		Expect(r.IsError).To(BeFalse())
		Expect(text(r)).To(HaveLen(1 << 20))
	})

	It("refuses, with one clear error and none of its replies, a batch whose replies would exceed the request's bytes", func() {
		ex := post(srv, "", batchOf(64, "afs_read", map[string]any{"path": "/overlay/lt.txt"}))
		expectRefused(ex, "Invalid Request: the replies to this request would exceed 8388608 bytes; send fewer calls per request, or read in parts with offset and length")
	})

	It("refuses a batch whose searches would read more than the request's scan budget", func() {
		// Each search reads the two files, 2 MB; 64 read 128 MB.
		ex := post(srv, "", batchOf(64, "afs_search", map[string]any{"path": "/overlay/tree", "query": "not there"}))
		expectRefused(ex, "Invalid Request: the searches of this request would read more than 67108864 bytes of files; search a narrower path, or send fewer searches per request")
		r := callTool(srv, "", "afs_search", map[string]any{"path": "/overlay/tree", "query": "not there"})
		Expect(r.IsError).To(BeFalse(), "one search of the same tree is within budget")
	})

	// Issue 26 item 6: an anonymous request, a 2025-03-26 batch whole,
	// runs within one shorter time, and so one bound on its CPU.
	It("holds the calls of an anonymous request, a batch included, to the anonymous time, and a credential's to the whole", func() {
		cfg := defaultConfig()
		cfg.Limits.AnonymousRequestTimeout = time.Nanosecond
		short := startHost(cfg, dataDir)
		ex := post(short, "", batchOf(64, "afs_search", map[string]any{"path": "/overlay/tree", "query": "not there"}))
		Expect(ex.status).To(Equal(http.StatusServiceUnavailable))
		Expect(string(ex.body)).To(MatchJSON(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the calls of this request ran longer than 1ns; send fewer calls per request"}}`))
		r := callTool(short, staticToken, "afs_search", map[string]any{"path": "/overlay/tree", "query": "not there"})
		Expect(r.IsError).To(BeFalse())
	})
})

// Issue 26 item 5: one member filled the data volume with afs_write.
var _ = Describe("The overlay's quotas", func() {
	It("answers a write past a quota with an in-call AFS_QUOTA error, the file untouched", func() {
		cfg := defaultConfig()
		cfg.Limits.OverlayFileBytes = 10
		cfg.Limits.OverlayBytes = 15
		dataDir := GinkgoT().TempDir()
		srv := startHost(cfg, dataDir)
		Expect(text(callTool(srv, staticToken, "afs_write", map[string]any{"path": "/overlay/a.txt", "content": "0123456789"}))).NotTo(BeEmpty())
		Expect(inCallError(callTool(srv, staticToken, "afs_write", map[string]any{"path": "/overlay/a.txt", "content": "x", "mode": "append"}))).To(Equal(
			"AFS_QUOTA: Over quota at /overlay/a.txt: a file may hold at most 10 bytes, and this write would make it 11"))
		Expect(inCallError(callTool(srv, staticToken, "afs_write", map[string]any{"path": "/overlay/b.txt", "content": "0123456789"}))).To(Equal(
			"AFS_QUOTA: Over quota at /overlay/b.txt: the overlay may hold at most 15 bytes in all; 10 are in use and this write adds 10"))
		Expect(os.ReadFile(filepath.Join(dataDir, "overlay", "a.txt"))).To(Equal([]byte("0123456789")))
		Expect(filepath.Join(dataDir, "overlay", "b.txt")).NotTo(BeAnExistingFile())
	})
})
