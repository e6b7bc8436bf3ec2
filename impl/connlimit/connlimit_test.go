package connlimit_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/connlimit"
)

// server serves on loopback behind the caps: /block says it started on
// started and waits until release is closed; anything else answers at once.
func server(l connlimit.Limits, started, release chan struct{}) string {
	GinkgoHelper()
	addr, _ := serve(l, started, release)
	return addr
}

// serve is server, with a channel told each time a connection turned idle,
// once the caps have counted it so: a test that needs an order of idle
// connections waits for each, since a loaded machine may run the server's
// bookkeeping of one connection after the client has sent on the next.
func serve(l connlimit.Limits, started, release chan struct{}) (string, <-chan struct{}) {
	GinkgoHelper()
	idled := make(chan struct{}, 64)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	if l.Refusal == nil {
		l.Refusal = connlimit.HTTPRefusal
	}
	cl := connlimit.Listen(ln, l)
	srv := &http.Server{
		Handler: cl.Bodies(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, err := io.ReadAll(r.Body); err != nil {
				return
			}
			if r.URL.Path == "/block" {
				started <- struct{}{}
				<-release
			}
			_, _ = io.WriteString(w, "ok")
		})),
		ConnState: func(c net.Conn, state http.ConnState) {
			cl.ConnState(c, state)
			if state == http.StateIdle {
				select {
				case idled <- struct{}{}:
				default:
				}
			}
		},
		ConnContext: cl.ConnContext,
	}
	go func() { _ = srv.Serve(cl) }()
	DeferCleanup(srv.Close)
	return ln.Addr().String(), idled
}

// turnedIdle waits until the server counted a connection idle.
func turnedIdle(idled <-chan struct{}) {
	GinkgoHelper()
	Eventually(idled).WithTimeout(10*time.Second).Should(Receive(), "the connection turned idle")
}

// client is one raw keep-alive connection, from the loopback address from.
type client struct {
	conn net.Conn
	r    *bufio.Reader
}

func dial(addr, from string) *client {
	GinkgoHelper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", addr)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(c.Close)
	return &client{conn: c, r: bufio.NewReader(c)}
}

// get sends a GET of path and returns its body, or the error that ended
// the connection.
func (c *client) get(path string) (string, error) {
	_ = c.conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(c.conn, "GET %s HTTP/1.1\r\nHost: test\r\n\r\n", path); err != nil {
		return "", err
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), err
}

// arrived waits for a /block request to reach the handler: a bound, so a
// request the caps closed fails the test instead of hanging it.
func arrived(started chan struct{}) {
	GinkgoHelper()
	Eventually(started).WithTimeout(10*time.Second).Should(Receive(), "the request reached the handler")
}

// answered reads the reply of a request sent with start.
func (c *client) answered() {
	GinkgoHelper()
	Expect(c.conn.SetDeadline(time.Now().Add(10 * time.Second))).To(Succeed())
	resp, err := http.ReadResponse(c.r, nil)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.Body.Close()).To(Succeed())
}

// start sends a GET of path without reading the reply.
func (c *client) start(path string) {
	GinkgoHelper()
	_, err := fmt.Fprintf(c.conn, "GET %s HTTP/1.1\r\nHost: test\r\n\r\n", path)
	Expect(err).NotTo(HaveOccurred())
}

// expectRefused reads the answer of a connection refused for a cap: 503
// with Retry-After, then the end of the connection, not a reset.
func expectRefused(c *client) {
	GinkgoHelper()
	_ = c.conn.SetDeadline(time.Now().Add(5 * time.Second))
	_, err := fmt.Fprintf(c.conn, "GET / HTTP/1.1\r\nHost: test\r\n\r\n")
	Expect(err).NotTo(HaveOccurred())
	resp, err := http.ReadResponse(c.r, nil)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.StatusCode).To(Equal(http.StatusServiceUnavailable))
	Expect(resp.Header.Get("Retry-After")).To(Equal("1"))
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	Expect(string(body)).To(Equal("Service Unavailable: too many connections; try again soon\n"))
	_, err = c.r.Peek(1)
	Expect(err).To(MatchError(io.EOF))
}

// trickle starts a POST of a 100-byte body and sends one byte of it.
func (c *client) trickle() {
	GinkgoHelper()
	_, err := fmt.Fprintf(c.conn, "POST /slow HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\nx")
	Expect(err).NotTo(HaveOccurred())
}

// closed reports whether the server has closed the connection: a read
// ends, and not for want of time.
func (c *client) closed() bool {
	_ = c.conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	_, err := c.r.Peek(1)
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

var _ = Describe("connection caps (issue 15 item 4)", func() {
	It("makes room for a new connection by closing the longest idle one of its address", func() {
		addr, idled := serve(connlimit.Limits{Total: 100, PerAddress: 3}, nil, nil)
		var idle []*client
		for range 3 {
			c := dial(addr, "127.0.0.1")
			Expect(c.get("/")).To(Equal("ok"))
			turnedIdle(idled)
			idle = append(idle, c)
		}
		fresh := dial(addr, "127.0.0.1")
		Expect(fresh.get("/")).To(Equal("ok"))
		Expect(idle[0].closed()).To(BeTrue(), "the longest idle")
		Expect(idle[1].get("/")).To(Equal("ok"))
		Expect(idle[2].get("/")).To(Equal("ok"))
	})

	It("refuses a new connection with 503 and Retry-After when every connection of its address is busy (issue 26 item 2)", func() {
		started, release := make(chan struct{}), make(chan struct{})
		addr := server(connlimit.Limits{Total: 100, PerAddress: 2}, started, release)
		busy := []*client{dial(addr, "127.0.0.1"), dial(addr, "127.0.0.1")}
		for _, c := range busy {
			c.start("/block")
			arrived(started)
		}
		expectRefused(dial(addr, "127.0.0.1"))
		Expect(dial(addr, "127.0.0.2").get("/")).To(Equal("ok"), "another address has room")
		close(release)
		for _, c := range busy {
			c.answered()
		}
		Eventually(func() (string, error) { return dial(addr, "127.0.0.1").get("/") }).Should(Equal("ok"))
	})

	It("holds a trusted proxy's connections, which carry every client's, to the total cap only", func() {
		proxy := netip.MustParseAddr("127.0.0.5")
		addr := server(connlimit.Limits{Total: 100, PerAddress: 2, Shared: func(a netip.Addr) bool { return a == proxy }}, nil, nil)
		var held []*client
		for range 5 {
			c := dial(addr, "127.0.0.5")
			Expect(c.get("/")).To(Equal("ok"))
			held = append(held, c)
		}
		for _, c := range held {
			Expect(c.get("/")).To(Equal("ok"), "none was closed to make room")
		}
	})

	It("caps the connections of all addresses together, closing the longest idle of any", func() {
		addr, idled := serve(connlimit.Limits{Total: 3, PerAddress: 3}, nil, nil)
		var idle []*client
		for i := range 3 {
			c := dial(addr, fmt.Sprintf("127.0.0.%d", i+1))
			Expect(c.get("/")).To(Equal("ok"))
			turnedIdle(idled)
			idle = append(idle, c)
		}
		Expect(dial(addr, "127.0.0.9").get("/")).To(Equal("ok"))
		Expect(idle[0].closed()).To(BeTrue())
		Expect(idle[2].get("/")).To(Equal("ok"))
	})

	It("counts a silent new connection as waiting, so it cannot hold its place", func() {
		addr := server(connlimit.Limits{Total: 100, PerAddress: 2}, nil, nil)
		silent := []*client{dial(addr, "127.0.0.1"), dial(addr, "127.0.0.1")}
		Expect(dial(addr, "127.0.0.1").get("/")).To(Equal("ok"))
		Expect(silent[0].closed()).To(BeTrue())
	})

	// Issue 26 item 2: bodies sent a byte a second from many addresses
	// filled the total cap, and other requests went unanswered.
	It("closes the connection whose body arrives slowest to make room, and never one whose body came", func() {
		started, release := make(chan struct{}, 1), make(chan struct{})
		addr := server(connlimit.Limits{Total: 4, PerAddress: 4, StallAfter: 100 * time.Millisecond}, started, release)
		busy := dial(addr, "127.0.0.1")
		busy.start("/block")
		arrived(started)
		var slow []*client
		for i := range 3 {
			c := dial(addr, fmt.Sprintf("127.0.0.%d", i+2))
			c.trickle()
			if i > 0 {
				// Faster, yet below the minimum rate.
				_, err := io.WriteString(c.conn, strings.Repeat("x", 40))
				Expect(err).NotTo(HaveOccurred())
			}
			slow = append(slow, c)
		}
		time.Sleep(200 * time.Millisecond)
		Expect(dial(addr, "127.0.0.9").get("/")).To(Equal("ok"))
		Expect(slow[0].closed()).To(BeTrue(), "the slowest")
		Expect(slow[1].closed()).To(BeFalse())

		By("refusing a newcomer once every connection in its way is busy, with a request that came whole")
		for _, c := range slow[1:] {
			Expect(c.conn.SetDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
			_, err := io.WriteString(c.conn, strings.Repeat("x", 59))
			Expect(err).NotTo(HaveOccurred())
			resp, err := http.ReadResponse(c.r, nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Body.Close()).To(Succeed())
		}
		var held []*client
		for range 3 {
			c := dial(addr, "127.0.0.9")
			c.start("/block")
			arrived(started)
			held = append(held, c)
		}
		expectRefused(dial(addr, "127.0.0.10"))
		close(release)
		for _, c := range append(held, busy) {
			c.answered()
		}
	})

	It("leaves a slow body alone before it has had StallAfter to arrive", func() {
		addr := server(connlimit.Limits{Total: 1, PerAddress: 1, StallAfter: time.Minute}, nil, nil)
		slow := dial(addr, "127.0.0.2")
		slow.trickle()
		time.Sleep(50 * time.Millisecond)
		expectRefused(dial(addr, "127.0.0.3"))
		Expect(slow.conn.SetDeadline(time.Now().Add(10 * time.Second))).To(Succeed())
		_, err := io.WriteString(slow.conn, strings.Repeat("x", 99))
		Expect(err).NotTo(HaveOccurred())
		resp, err := http.ReadResponse(slow.r, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Body.Close()).To(Succeed())
	})
})
