package main_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"
)

// get sends a GET with the Host header set to host.
func get(rawURL, host string) (int, string) {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	Expect(err).NotTo(HaveOccurred())
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp.StatusCode, string(raw)
}

// startedRequest opens a connection to base and starts a tools/list
// request in flight: its headers ask to send the body only once the server
// wants it (Expect: 100-continue), and the server's 100 Continue shows that
// a handler is reading it. finish sends the body and returns the reply's
// status line.
func startedRequest(base string) (finish func() string) {
	GinkgoHelper()
	u, err := url.Parse(base)
	Expect(err).NotTo(HaveOccurred())
	conn, err := net.Dial("tcp", u.Host)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(conn.Close)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n",
		u.Host, len(body))
	Expect(err).NotTo(HaveOccurred())
	r := bufio.NewReader(conn)
	line, err := r.ReadString('\n')
	Expect(err).NotTo(HaveOccurred())
	Expect(line).To(Equal("HTTP/1.1 100 Continue\r\n"))
	line, err = r.ReadString('\n')
	Expect(err).NotTo(HaveOccurred())
	Expect(line).To(Equal("\r\n"))
	return func() string {
		_, err := conn.Write([]byte(body))
		Expect(err).NotTo(HaveOccurred())
		line, err := r.ReadString('\n')
		Expect(err).NotTo(HaveOccurred())
		return strings.TrimSpace(line)
	}
}

var _ = Describe("toolhost serve on a network (issue 8 items 9, 12, 13)", func() {
	It("prints only its public URL and refuses a foreign Host on every endpoint", func() {
		s := start(toolhostPath, "serve", "--addr", "127.0.0.1:0", "--data", GinkgoT().TempDir(),
			"--public-url", "https://tools.example.test", "--allowed-host", "proxy.internal")
		DeferCleanup(func() { s.Terminate().Wait(10 * time.Second) })
		Eventually(s.Out, 10*time.Second).Should(gbytes.Say(`toolhost serving https://tools.example.test/mcp \(listening on (127.0.0.1:\d+)`))
		addr := regexpGroup(`listening on (127.0.0.1:\d+)`, string(s.Out.Contents()))
		base := "http://" + addr

		for _, path := range []string{"/.well-known/mcp.json", "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server", "/oauth/device"} {
			status, body := get(base+path, "attacker.example")
			Expect(status).To(Equal(http.StatusMisdirectedRequest), path)
			Expect(body).To(HavePrefix("Misdirected Request"), path)
		}
		req, err := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		Expect(err).NotTo(HaveOccurred())
		req.Host = "attacker.example:" + strings.Split(addr, ":")[1]
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Body.Close()).To(Succeed())
		Expect(resp.StatusCode).To(Equal(http.StatusMisdirectedRequest))

		for _, host := range []string{"tools.example.test", "proxy.internal", addr} {
			status, body := get(base+"/.well-known/mcp.json", host)
			Expect(status).To(Equal(http.StatusOK), host)
			Expect(body).To(ContainSubstring(`"url":"https://tools.example.test/mcp"`), host)
			Expect(body).NotTo(ContainSubstring(addr), host)
		}
		status, body := get(base+"/.well-known/oauth-authorization-server", "proxy.internal")
		Expect(status).To(Equal(http.StatusOK))
		Expect(body).To(ContainSubstring(`"issuer":"https://tools.example.test"`))
	})

	It("needs --public-url when it listens on every interface", func() {
		s := exits(start(toolhostPath, "serve", "--addr", "0.0.0.0:0", "--data", GinkgoT().TempDir()), 1)
		Expect(s.Err).To(gbytes.Say(`--addr 0.0.0.0:0 listens on every interface; give --public-url`))
	})

	It("drains a request in flight on SIGTERM and exits 0", func() {
		host, base := serve("127.0.0.1:0", GinkgoT().TempDir())
		finish := startedRequest(base)
		host.Terminate()
		Eventually(host.Err, 10*time.Second).Should(gbytes.Say(`letting the requests in flight finish`))
		Expect(host.ExitCode()).To(Equal(-1), "still running while a request is in flight")
		Expect(finish()).To(Equal("HTTP/1.1 200 OK"))
		exits(host, 0)
	})

	It("cuts off what is still running at the drain deadline, and says so in its exit status", func() {
		s := start(toolhostPath, "serve", "--addr", "127.0.0.1:0", "--data", GinkgoT().TempDir(), "--drain-timeout", "300ms")
		Eventually(s.Out, 10*time.Second).Should(gbytes.Say(`toolhost serving`))
		startedRequest(serving.FindStringSubmatch(string(s.Out.Contents()))[1])
		s.Terminate()
		exits(s, 1)
		Expect(s.Err).To(gbytes.Say(`requests still running after the 300ms drain timeout were cut off`))
	})

	It("creates the data directory 0700 and warns when an existing one is readable by others", func() {
		parent := GinkgoT().TempDir()
		fresh := filepath.Join(parent, "fresh")
		host, _ := serve("127.0.0.1:0", fresh)
		fi, err := os.Stat(fresh)
		Expect(err).NotTo(HaveOccurred())
		Expect(fi.Mode().Perm()).To(Equal(os.FileMode(0o700)))
		Expect(string(host.Err.Contents())).NotTo(ContainSubstring("readable by group or others"))

		open := filepath.Join(parent, "open")
		Expect(os.Mkdir(open, 0o755)).To(Succeed())
		Expect(os.Chmod(open, 0o755)).To(Succeed())
		other, _ := serve("127.0.0.1:0", open)
		Eventually(other.Err).Should(gbytes.Say(`the data directory is readable by group or others; it holds the host's secrets: chmod 700 it`))
	})
})

var _ = Describe("toolhost serve under many idle connections (issue 15 item 4)", func() {
	It("keeps answering new requests, holding no more connections of one address than its cap", func() {
		s := start(toolhostPath, "serve", "--addr", "127.0.0.1:0", "--data", GinkgoT().TempDir(),
			"--max-connections", "16", "--max-connections-per-address", "8", "--idle-timeout", "1m")
		DeferCleanup(func() { s.Terminate().Wait(10 * time.Second) })
		Eventually(s.Out, 10*time.Second).Should(gbytes.Say(`toolhost serving`))
		base := serving.FindStringSubmatch(string(s.Out.Contents()))[1]
		u, err := url.Parse(base)
		Expect(err).NotTo(HaveOccurred())

		body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
		request := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", u.Host, len(body), body)
		// 40 keep-alive connections, each left idle after one request.
		var idle []net.Conn
		for range 40 {
			conn, err := net.Dial("tcp", u.Host)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(conn.Close)
			_, err = io.WriteString(conn, request)
			Expect(err).NotTo(HaveOccurred())
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			idle = append(idle, conn)
		}
		status, _ := post(base+"/mcp", "application/json", "", body)
		Expect(status).To(Equal(http.StatusOK))

		open := 0
		for _, conn := range idle {
			Expect(conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))).To(Succeed())
			_, err := conn.Read(make([]byte, 1))
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				open++
			}
		}
		Expect(open).To(BeNumerically("<=", 8), "the host closed the longest idle connections to make room")
		Expect(open).To(BeNumerically(">=", 7), "and only as many as it needed")
	})
})

var _ = Describe("toolhost serve under reads of a large file (issue 8 item 10)", func() {
	It("stays under 300 MB of resident memory while 16 clients read a 100 MB file", func() {
		data := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(data, "overlay"), 0o700)).To(Succeed())
		// Sparse: 100 MB the file system does not store.
		f, err := os.Create(filepath.Join(data, "overlay", "big.bin"))
		Expect(err).NotTo(HaveOccurred())
		Expect(f.Truncate(100 << 20)).To(Succeed())
		_, err = f.WriteAt([]byte("\xff"), 100<<20-1)
		Expect(err).NotTo(HaveOccurred())
		Expect(f.Close()).To(Succeed())
		host, base := servePatient(data)

		var wg sync.WaitGroup
		statuses := make([]int, 16)
		bodies := make([]string, 16)
		for i := range statuses {
			wg.Go(func() {
				defer GinkgoRecover()
				// Each client reads from its own offset, the last one the
				// file's end, which is not text.
				offset := strconv.Itoa(i * (100 << 20) / 16)
				statuses[i], bodies[i] = post(base+"/mcp", "application/json", "",
					`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"afs_read","arguments":{"path":"/overlay/big.bin","offset":`+offset+`}}}`)
			})
		}
		wg.Wait()
		// A MiB of zero bytes, which JSON writes six times over: the host's
		// bound on replies in flight (issue 26 item 1) lets a few through at
		// once, and a read that finds no room within its time is told to
		// come back.
		expectAnsweredOrBusy(statuses, bodies, http.StatusOK, "")
		peak := peakRSS(host.Command.Process.Pid)
		fmt.Fprintf(GinkgoWriter, "peak resident memory: %d MB\n", peak>>20)
		Expect(peak).To(BeNumerically("<", 300<<20))
	})
})

var _ = Describe("toolhost serve under the batch attack (issue 15 item 1)", func() {
	It("stays under 300 MB of resident memory while 4 clients send a batch of 64 reads of a MiB that JSON writes six times over", func() {
		data := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(data, "overlay"), 0o700)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(data, "overlay", "lt.txt"), []byte(strings.Repeat("<", 1<<20)), 0o600)).To(Succeed())
		host, base := servePatient(data)

		call := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"afs_read","arguments":{"path":"/overlay/lt.txt"}}}`
		calls := make([]string, 64)
		for i := range calls {
			calls[i] = fmt.Sprintf(call, i+1)
		}
		// About 7 KB, anonymous, no MCP-Protocol-Version: a 2025-03-26
		// batch, whose replies would be 384 MB.
		batch := "[" + strings.Join(calls, ",") + "]"
		var wg sync.WaitGroup
		statuses := make([]int, 4)
		bodies := make([]string, 4)
		for i := range statuses {
			wg.Go(func() {
				defer GinkgoRecover()
				statuses[i], bodies[i] = post(base+"/mcp", "application/json", "", batch)
			})
		}
		wg.Wait()
		expectAnsweredOrBusy(statuses, bodies, http.StatusBadRequest, "the replies to this request would exceed")
		peak := peakRSS(host.Command.Process.Pid)
		fmt.Fprintf(GinkgoWriter, "peak resident memory: %d MB\n", peak>>20)
		Expect(peak).To(BeNumerically("<", 300<<20))
	})
})

var _ = Describe("toolhost serve under slow bodies from many addresses (issue 26 item 2)", func() {
	It("answers another address's requests while bodies trickle in over more connections than the total cap", func() {
		s := start(toolhostPath, "serve", "--addr", "127.0.0.1:0", "--data", GinkgoT().TempDir(),
			"--max-connections", "32", "--max-connections-per-address", "16")
		DeferCleanup(func() { s.Terminate().Wait(10 * time.Second) })
		Eventually(s.Out, 10*time.Second).Should(gbytes.Say(`toolhost serving`))
		base := serving.FindStringSubmatch(string(s.Out.Contents()))[1]
		u, err := url.Parse(base)
		Expect(err).NotTo(HaveOccurred())

		// 3 addresses, 16 connections each: more than the total cap of 32,
		// each sending a byte of its body.
		for i := range 48 {
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+i%3))}}
			conn, err := d.Dial("tcp", u.Host)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(conn.Close)
			_, _ = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", u.Host)
		}
		time.Sleep(1100 * time.Millisecond) // past the second a request may take to arrive

		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 9)}}
		client := &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
		answered := 0
		for range 20 {
			req, err := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			Expect(err).NotTo(HaveOccurred())
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := client.Do(req)
			Expect(err).NotTo(HaveOccurred(), "a refusal is an answer, never a reset")
			Expect(resp.Body.Close()).To(Succeed())
			if resp.StatusCode == http.StatusOK {
				answered++
			}
		}
		Expect(answered).To(BeNumerically(">=", 19), "at least 95%")
	})
})

var _ = Describe("toolhost serve under concurrent reads and slow readers (issue 26 item 1)", func() {
	It("stays under 500 MB while 128 clients never read their replies and 128 others read a MiB that JSON writes six times over", func() {
		data := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(data, "overlay"), 0o700)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(data, "overlay", "lt.txt"), []byte(strings.Repeat("<", 1<<20)), 0o600)).To(Succeed())
		s := start(toolhostPath, "serve", "--addr", "127.0.0.1:0", "--data", data, "--max-connections-per-address", "512")
		DeferCleanup(func() { s.Terminate().Wait(10 * time.Second) })
		Eventually(s.Out, 10*time.Second).Should(gbytes.Say(`toolhost serving`))
		base := serving.FindStringSubmatch(string(s.Out.Contents()))[1]
		u, err := url.Parse(base)
		Expect(err).NotTo(HaveOccurred())

		read := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"afs_read","arguments":{"path":"/overlay/lt.txt"}}}`
		request := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", u.Host, len(read), read)
		for range 128 {
			conn, err := net.Dial("tcp", u.Host)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(conn.Close)
			_, err = io.WriteString(conn, request)
			Expect(err).NotTo(HaveOccurred())
		}

		var wg sync.WaitGroup
		statuses := make([]int, 128)
		retry := make([]string, 128)
		for i := range statuses {
			wg.Go(func() {
				defer GinkgoRecover()
				req, err := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(read))
				Expect(err).NotTo(HaveOccurred())
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := http.DefaultClient.Do(req)
				Expect(err).NotTo(HaveOccurred())
				_, err = io.Copy(io.Discard, resp.Body)
				Expect(err).NotTo(HaveOccurred())
				Expect(resp.Body.Close()).To(Succeed())
				statuses[i], retry[i] = resp.StatusCode, resp.Header.Get("Retry-After")
			})
		}
		wg.Wait()
		for i, status := range statuses {
			Expect(status).To(BeElementOf(http.StatusOK, http.StatusServiceUnavailable))
			if status == http.StatusServiceUnavailable {
				Expect(retry[i]).To(Equal("1"), "a refusal says when to come back")
			}
		}
		peak := peakRSS(s.Command.Process.Pid)
		fmt.Fprintf(GinkgoWriter, "peak resident memory: %d MB; answered %d of 128\n", peak>>20, count(statuses, http.StatusOK))
		Expect(peak).To(BeNumerically("<", 500<<20))
	})
})

// servePatient serves data with the default configuration but time enough
// for an anonymous request: on a loaded machine (CI under -race) the
// default 500 ms can run out for every request of a memory spec before any
// is at work, and the memory these specs measure is that of requests at
// work.
func servePatient(data string) (*gexec.Session, string) {
	GinkgoHelper()
	def, err := os.ReadFile(filepath.Join("..", "..", "impl", "config", "default.yaml"))
	Expect(err).NotTo(HaveOccurred())
	Expect(bytes.Contains(def, []byte("anonymous_request_timeout: 500ms"))).To(BeTrue())
	config := filepath.Join(GinkgoT().TempDir(), "toolhost.yaml")
	Expect(os.WriteFile(config, bytes.Replace(def, []byte("anonymous_request_timeout: 500ms"), []byte("anonymous_request_timeout: 30s"), 1), 0o600)).To(Succeed())
	return serveWith(nil, "127.0.0.1:0", data, "--config", config)
}

// expectAnsweredOrBusy expects every request answered with status (and a
// body containing text), or 503 because the host's bound on replies in
// flight stayed full for its time, or its anonymous time ran out while it
// waited (issue 26 items 1 and 6); and at least one answered.
func expectAnsweredOrBusy(statuses []int, bodies []string, status int, text string) {
	GinkgoHelper()
	for i, got := range statuses {
		if got == http.StatusServiceUnavailable {
			Expect(bodies[i]).To(Or(ContainSubstring("the host is answering as much as it holds at once"),
				ContainSubstring("the calls of this request ran longer than")))
			continue
		}
		Expect(got).To(Equal(status), bodies[i])
		Expect(bodies[i]).To(ContainSubstring(text))
	}
	Expect(count(statuses, status)).To(BeNumerically(">=", 1), "answered %v: %q", statuses, bodies)
}

// count is how many of statuses are status.
func count(statuses []int, status int) int {
	n := 0
	for _, s := range statuses {
		if s == status {
			n++
		}
	}
	return n
}

// peakRSS is the most resident memory process pid has held (VmHWM).
func peakRSS(pid int) int64 {
	GinkgoHelper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	Expect(err).NotTo(HaveOccurred())
	kb, err := strconv.ParseInt(regexpGroup(`VmHWM:\s+(\d+) kB`, string(status)), 10, 64)
	Expect(err).NotTo(HaveOccurred())
	return kb << 10
}
