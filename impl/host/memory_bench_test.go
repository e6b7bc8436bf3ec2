package host_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/conform-mcp/conform/impl/config"
	"github.com/conform-mcp/conform/impl/host"
)

// keepAlive is how many keep-alive connections BenchmarkMemory holds open.
const keepAlive = 256

// The child process of BenchmarkMemory: memoryServerEnv names what it
// serves (bare or host), memoryReplyEnv the bare handler's reply.
const (
	memoryServerEnv = "CONFORM_MEMORY_SERVER"
	memoryReplyEnv  = "CONFORM_MEMORY_REPLY"
)

// TestMain lets the test binary serve as BenchmarkMemory's child process,
// so that the memory measured is the server's alone, not the load's.
func TestMain(m *testing.M) {
	if kind := os.Getenv(memoryServerEnv); kind != "" {
		if err := serveForMemory(kind, os.Getenv(memoryReplyEnv)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// BenchmarkMemory measures the resident memory of a server process, bare or
// the reference host, serving anonymous reads from keepAlive clients at
// once, each on its own keep-alive connection: base-MiB before any request,
// peak-MiB the most it held (VmHWM), load-MiB when the load ends, and
// idle-MiB once the connections are closed and the server has collected its
// garbage and returned what is free to the system. idle-MiB near base-MiB
// means nothing the load left behind stays.
func BenchmarkMemory(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads the server's memory from /proc")
	}
	cfg, err := config.Default()
	if err != nil {
		b.Fatal(err)
	}
	h, err := host.New(cfg, host.Options{DataDir: b.TempDir(), Auth: fakeAuthority{}})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	read := benchRequests[0]
	_, _, reply := answer(h.Handler(), read.body)
	for _, kind := range []string{"bare", "host"} {
		b.Run(kind, func(b *testing.B) {
			child := startMemoryServer(b, kind, string(reply))
			base := child.memory(b, "VmRSS")

			transport := &http.Transport{MaxIdleConnsPerHost: keepAlive, MaxConnsPerHost: keepAlive}
			client := &http.Client{Transport: transport}
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for range keepAlive {
				wg.Add(1)
				go func() {
					defer wg.Done()
					// Every client sends at least one request, so every
					// connection is opened even when b.N is small.
					for i := next.Add(1); i <= int64(max(b.N, keepAlive)); i = next.Add(1) {
						if err := send(client, child.url, read); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			load := child.memory(b, "VmRSS")
			peak := child.memory(b, "VmHWM")
			transport.CloseIdleConnections()
			goroutines := child.collect(b)
			idle := child.memory(b, "VmRSS")

			b.ReportMetric(base, "base-MiB")
			b.ReportMetric(peak, "peak-MiB")
			b.ReportMetric(load, "load-MiB")
			b.ReportMetric(idle, "idle-MiB")
			b.ReportMetric(goroutines, "idle-goroutines")
		})
	}
}

// send sends r once and reads the whole reply, leaving the connection for
// the next request.
func send(client *http.Client, url string, r benchRequest) error {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(r.body))
	if err != nil {
		return err
	}
	setHeaders(req)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != r.status {
		return fmt.Errorf("%s: status %d, want %d", r.name, resp.StatusCode, r.status)
	}
	return nil
}

type memoryServer struct {
	pid  int
	url  string
	base string
}

// startMemoryServer runs this test binary as the server of kind and reads
// the address it listens on. The server stops when the benchmark does.
func startMemoryServer(b *testing.B, kind, reply string) memoryServer {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), memoryServerEnv+"="+kind, memoryReplyEnv+"="+reply)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = stdin.Close() // the child stops when its standard input closes
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("%s server: %v", kind, err)
	}
	base := "http://" + strings.TrimSpace(line)
	return memoryServer{pid: cmd.Process.Pid, url: base + "/mcp", base: base}
}

// memory reads one of the server's memory figures (proc(5), status) in MiB.
func (s memoryServer) memory(b *testing.B, field string) float64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid))
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if value, ok := strings.CutPrefix(line, field+":"); ok {
			kB, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 64)
			if err != nil {
				b.Fatalf("%s: %v", line, err)
			}
			return kB / 1024
		}
	}
	b.Fatalf("no %s in /proc/%d/status", field, s.pid)
	return 0
}

// collect asks the server to wait for its connections to end, collect its
// garbage and return free memory to the system, and returns how many
// goroutines it has left.
func (s memoryServer) collect(b *testing.B) float64 {
	resp, err := http.Get(s.base + "/collect")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	n, err := strconv.ParseFloat(string(body), 64)
	if err != nil {
		b.Fatalf("collect: %q", body)
	}
	return n
}

// serveForMemory is the child: it serves kind on a loopback port, prints
// the address, and stops when its standard input closes. /collect runs the
// collector and returns free memory to the system.
func serveForMemory(kind, reply string) error {
	mux := http.NewServeMux()
	switch kind {
	case "bare":
		mux.Handle("/mcp", bare(http.StatusOK, "application/json", []byte(reply)))
	case "host":
		dir, err := os.MkdirTemp("", "conform-memory-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cfg, err := config.Default()
		if err != nil {
			return err
		}
		h, err := host.New(cfg, host.Options{DataDir: dir, Auth: fakeAuthority{}})
		if err != nil {
			return err
		}
		defer h.Close()
		mux.Handle("/mcp", h.Handler())
	default:
		return fmt.Errorf("unknown server %q", kind)
	}
	// Closed connections end on the server's side a moment after the
	// client closes them; /collect waits for that (a bounded number of
	// yields), then collects, and answers how many goroutines are left.
	var open atomic.Int64
	mux.HandleFunc("/collect", func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i < 100000 && open.Load() > 1; i++ {
			runtime.Gosched()
		}
		debug.FreeOSMemory()
		fmt.Fprint(w, runtime.NumGoroutine())
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ConnState: func(_ net.Conn, state http.ConnState) {
		switch state {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}}
	go func() { _ = srv.Serve(ln) }()
	fmt.Println(ln.Addr().String())
	_, _ = io.Copy(io.Discard, os.Stdin)
	return srv.Close()
}
