package clientrun_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/clientrun"
)

// noBrowser opens nothing.
var noBrowser = &clientrun.Browser{HTTP: &http.Client{}, Allow: func(string) bool { return false }}

var _ = Describe("the client command", func() {
	It("fills in the placeholders as single shell words", func() {
		v := clientrun.Values{URL: "http://h/mcp?a=1&b=2", StateDir: "/tmp/it's here", Tool: "echo", Args: `{"text": "a b"}`}
		res, err := clientrun.Run(context.Background(), clientrun.Command{Script: `printf '%s|' {url} {state_dir} {tool} {args}`}, v, noBrowser)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Stdout).To(Equal(`http://h/mcp?a=1&b=2|/tmp/it's here|echo|{"text": "a b"}|`))
		Expect(res.ExitCode).To(Equal(0))
		Expect(clientrun.Uses("x {tool}", "tool")).To(BeTrue())
		Expect(clientrun.Uses("x {url}", "tool")).To(BeFalse())
	})

	It("keeps both streams, the exit status and the environment it was given", func() {
		res, err := clientrun.Run(context.Background(), clientrun.Command{Script: `echo out; echo "err $EXTRA" >&2; exit 3`, Env: []string{"EXTRA=given"}}, clientrun.Values{}, noBrowser)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Stdout).To(Equal("out\n"))
		Expect(res.Stderr).To(Equal("err given\n"))
		Expect(res.ExitCode).To(Equal(3))
		Expect(res.Crashed()).To(BeEmpty())
	})

	It("keeps only the end of a stream that runs long", func() {
		res, err := clientrun.Run(context.Background(), clientrun.Command{Script: `i=0; while [ $i -lt 3000 ]; do echo "line $i of a client that talks a lot"; i=$((i+1)); done; echo last`}, clientrun.Values{}, noBrowser)
		Expect(err).NotTo(HaveOccurred())
		Expect(len(res.Stdout)).To(BeNumerically("<=", 64<<10))
		Expect(res.Stdout).To(HaveSuffix("last\n"))
	})

	It("kills the whole process group when the time is up, leaving nothing behind", func() {
		pidFile := filepath.Join(GinkgoT().TempDir(), "child")
		script := `sleep 60 & echo $! > ` + clientrun.Quote(pidFile) + `; wait`
		start := time.Now()
		res, err := clientrun.Run(context.Background(), clientrun.Command{Script: script, Timeout: 500 * time.Millisecond}, clientrun.Values{}, noBrowser)
		Expect(err).NotTo(HaveOccurred())
		Expect(time.Since(start)).To(BeNumerically("<", 5*time.Second))
		Expect(res.TimedOut).To(BeTrue())
		Expect(res.Crashed()).To(ContainSubstring("still running"))
		Expect(gone(pidFile)).To(BeTrue())
	})

	It("kills what the client left running in the background once it has ended", func() {
		pidFile := filepath.Join(GinkgoT().TempDir(), "child")
		script := `sleep 60 >/dev/null 2>&1 & echo $! > ` + clientrun.Quote(pidFile) + `; exit 0`
		res, err := clientrun.Run(context.Background(), clientrun.Command{Script: script, Timeout: 10 * time.Second}, clientrun.Values{}, noBrowser)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.ExitCode).To(Equal(0))
		Expect(gone(pidFile)).To(BeTrue())
	})

	It("tells a client a signal ended inside the shell from one that exited", func() {
		res, err := clientrun.Run(context.Background(), clientrun.Command{Script: `sh -c 'kill -SEGV $$'; exit $?`}, clientrun.Values{}, noBrowser)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Killed).To(BeTrue())
		Expect(res.Crashed()).To(ContainSubstring("signal"))
	})

	It("kills the group when the scenario ends first", func() {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		res, err := clientrun.Run(ctx, clientrun.Command{Script: `sleep 60`, Timeout: time.Minute}, clientrun.Values{}, noBrowser)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.TimedOut).To(BeFalse())
		Expect(res.Killed).To(BeTrue())
	})
})

// gone says whether the process whose pid the file holds no longer runs
// (a zombie awaiting its reaper counts as gone: it runs nothing).
func gone(pidFile string) bool {
	data, err := os.ReadFile(pidFile)
	Expect(err).NotTo(HaveOccurred())
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	Expect(err).NotTo(HaveOccurred())
	var ok bool
	Eventually(func() bool {
		if syscall.Kill(pid, 0) != nil {
			ok = true
			return true
		}
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		ok = err != nil || strings.Contains(string(stat), ") Z ")
		return ok
	}, 3*time.Second, 50*time.Millisecond).Should(BeTrue())
	return ok
}

// authorizationServer answers every request with a redirect to target.
func authorizationServer(target func() string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target(), http.StatusFound)
	}))
}

var _ = Describe("the browser stand-in", func() {
	It("delivers the redirect of a URL given to $BROWSER, waiting for a listener that comes up late", func() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		port := ln.Addr().(*net.TCPAddr).Port
		Expect(ln.Close()).To(Succeed())
		callback := "http://127.0.0.1:" + strconv.Itoa(port) + "/callback?code=c"
		as := authorizationServer(func() string { return callback })
		defer as.Close()

		got := make(chan string, 1)
		go func() {
			defer GinkgoRecover()
			time.Sleep(300 * time.Millisecond)
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
			Expect(err).NotTo(HaveOccurred())
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r.URL.RawQuery })}
			go func() { _ = srv.Serve(l) }()
			DeferCleanup(srv.Close)
		}()
		b := &clientrun.Browser{HTTP: &http.Client{}, Allow: clientrun.SameOrigin(as.URL)}
		script := `"$BROWSER" {url}; i=0; while [ $i -lt 50 ] && [ ! -s ` + clientrun.Quote(filepath.Join(GinkgoT().TempDir(), "never")) + ` ]; do sleep 0.1; i=$((i+1)); done`
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan *clientrun.Result, 1)
		go func() {
			defer GinkgoRecover()
			res, err := clientrun.Run(ctx, clientrun.Command{Script: script, Timeout: 10 * time.Second}, clientrun.Values{URL: as.URL + "/authorize?x=1"}, b)
			Expect(err).NotTo(HaveOccurred())
			done <- res
		}()
		Eventually(got, 5*time.Second).Should(Receive(Equal("code=c")))
		cancel()
		var res *clientrun.Result
		Eventually(done, 5*time.Second).Should(Receive(&res))
		Expect(res.Opened).To(HaveLen(1))
		Expect(res.Opened[0].Via).To(Equal("BROWSER"))
		Expect(res.Opened[0].Delivered).To(BeTrue())
	})

	It("opens an authorization URL the client prints, once, and no URL of another origin", func() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		hits := make(chan string, 4)
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits <- r.URL.RawQuery })}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		as := authorizationServer(func() string { return "http://" + ln.Addr().String() + "/cb?code=printed" })
		defer as.Close()
		b := &clientrun.Browser{HTTP: &http.Client{}, Allow: clientrun.SameOrigin(as.URL)}
		script := `echo "Open {url} to sign in."; echo "again: {url}"; echo "not this: http://192.0.2.1/authorize"; sleep 1`
		res, err := clientrun.Run(context.Background(), clientrun.Command{Script: strings.ReplaceAll(script, "{url}", as.URL+"/authorize"), Timeout: 10 * time.Second}, clientrun.Values{}, b)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Opened).To(HaveLen(1))
		Expect(res.Opened[0].Via).To(Equal("output"))
		Expect(res.Opened[0].Delivered).To(BeTrue())
		Expect(hits).To(Receive(Equal("code=printed")))
	})

	It("opens once an authorization URL the client both prints and hands to $BROWSER, spelt differently", func() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		srv := &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		var asked atomic.Int32
		as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked.Add(1)
			http.Redirect(w, r, "http://"+ln.Addr().String()+"/cb?code=c", http.StatusFound)
		}))
		defer as.Close()
		b := &clientrun.Browser{HTTP: &http.Client{}, Allow: clientrun.SameOrigin(as.URL)}
		// The same request: scope's space written + in the one, %20 in the
		// other, and its parameters in another order.
		printed := as.URL + "/authorize?scope=a+b&state=s"
		handed := as.URL + "/authorize?state=s&scope=a%20b"
		script := `echo "Please visit: ` + printed + `"; "$BROWSER" ` + clientrun.Quote(handed) + `; sleep 1`
		res, err := clientrun.Run(context.Background(), clientrun.Command{Script: script, Timeout: 10 * time.Second}, clientrun.Values{}, b)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Opened).To(HaveLen(1))
		Expect(res.Opened[0].Delivered).To(BeTrue())
		Expect(asked.Load()).To(Equal(int32(1)))
	})

	It("delivers a redirect only to a loopback listener", func() {
		as := authorizationServer(func() string { return "https://example.com/cb?code=x" })
		defer as.Close()
		b := &clientrun.Browser{HTTP: &http.Client{}, Allow: clientrun.SameOrigin(as.URL)}
		res, err := clientrun.Run(context.Background(), clientrun.Command{Script: `"$BROWSER" {url}; sleep 1`, Timeout: 10 * time.Second}, clientrun.Values{URL: as.URL + "/authorize"}, b)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Opened).To(HaveLen(1))
		Expect(res.Opened[0].Delivered).To(BeFalse())
		Expect(res.Opened[0].Error).To(ContainSubstring("not to a loopback http listener"))
	})
})
