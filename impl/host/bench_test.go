package host_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/conform-mcp/conform/impl/afs"
	"github.com/conform-mcp/conform/impl/config"
	"github.com/conform-mcp/conform/impl/host"
	"github.com/conform-mcp/conform/impl/tools"
)

// concurrency is how many requests are in flight at once in BenchmarkMCP,
// each on its own keep-alive connection.
const concurrency = 16

// benchRequest is one request every variant of BenchmarkMCP answers.
type benchRequest struct {
	name   string
	body   string
	status int
	// reply is a substring the host's reply must hold, so a benchmark of a
	// broken host fails instead of measuring its error path.
	reply string
	// gated marks a request only the gate answers: the SDK alone has no 401.
	gated bool
}

var benchRequests = []benchRequest{
	{name: "read", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"afs_read","arguments":{"path":"/public/readme.md"}}}`, status: http.StatusOK, reply: "# Public readme"},
	{name: "list", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, status: http.StatusOK, reply: `"afs_write"`},
	{name: "401", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"afs_write","arguments":{"path":"/overlay/x","content":"x"}}}`, status: http.StatusUnauthorized, reply: "Unauthorized", gated: true},
}

// BenchmarkMCP measures, in one run and on the same requests, the reference
// host (gate, SDK handler, tools), the SDK's streamable handler over the same
// tools without the gate, and a bare net/http handler that answers the
// host's own reply bytes: the practical limit of the machine. Each request
// goes over loopback HTTP on keep-alive connections, concurrency at a time,
// so ns/op is the inverse of throughput and the ratio of two ns/op is the
// ratio of their requests per second (`make bench` prints it).
func BenchmarkMCP(b *testing.B) {
	cfg, err := config.Default()
	if err != nil {
		b.Fatal(err)
	}
	h, err := host.New(cfg, host.Options{DataDir: b.TempDir(), Auth: fakeAuthority{}})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	variants := []struct {
		name    string
		handler http.Handler
	}{
		{"sdk", ungatedSDK(b)},
		{"host", h.Handler()},
	}
	for _, r := range benchRequests {
		status, contentType, reply := answer(h.Handler(), r.body)
		if status != r.status || !bytes.Contains(reply, []byte(r.reply)) {
			b.Fatalf("%s: the host answered %d %s", r.name, status, reply)
		}
		b.Run(r.name+"/bare", func(b *testing.B) {
			loopback(b, bare(status, contentType, reply), r)
		})
		for _, v := range variants {
			if r.gated && v.name == "sdk" {
				continue
			}
			b.Run(r.name+"/"+v.name, func(b *testing.B) { loopback(b, v.handler, r) })
		}
	}
}

// ungatedSDK is the host's MCP handler with nothing in front of it, over a
// tree that holds the file the benchmark reads.
func ungatedSDK(b *testing.B) http.Handler {
	mem, err := afs.NewMemory(map[string]string{"readme.md": "# Public readme\n\nThis file is opened to network clients by a networkRead rule on /public.\n"}, time.Now)
	if err != nil {
		b.Fatal(err)
	}
	fsys, err := afs.New([]afs.Mount{{Path: "/public", Provider: afs.ReadOnly(mem)}}, []string{"/public"}, afs.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	return tools.New(tools.Info{Name: "conform reference host", Version: "(devel)"}, fsys, nil, 1).Handler()
}

// bare answers every request with the same status and bytes: the least a
// net/http server can do for a JSON-RPC reply of that size. It reads the
// body, as any handler of a POST must.
func bare(status int, contentType string, reply []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		_, _ = w.Write(reply)
	})
}

// answer is what h replies to body, without a network.
func answer(h http.Handler, body string) (int, string, []byte) {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
	setHeaders(req)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes()
}

func setHeaders(req *http.Request) {
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
}

// loopback serves h on a loopback port and sends r's body to it from
// concurrency goroutines, each reusing its keep-alive connection.
func loopback(b *testing.B, h http.Handler, r benchRequest) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	transport := &http.Transport{MaxIdleConnsPerHost: concurrency}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport}
	url := srv.URL + "/mcp"
	b.SetParallelism((concurrency + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ReportAllocs()
	before := cpuTime(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(r.body))
			if err != nil {
				b.Error(err)
				return
			}
			setHeaders(req)
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != r.status {
				b.Errorf("%s: status %d, want %d", r.name, resp.StatusCode, r.status)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(cpuTime(b)-before)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the CPU time the process has used, user and system: on a
// machine shared with other work, CPU per request varies less than wall
// time per request.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
