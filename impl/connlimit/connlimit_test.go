package connlimit_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/connlimit"
)

// server serves on loopback behind the caps: /block says it started on
// started and waits until release is closed; anything else answers at once.
func server(l connlimit.Limits, started, release chan struct{}) string {
	GinkgoHelper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	cl := connlimit.Listen(ln, l)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/block" {
				started <- struct{}{}
				<-release
			}
			_, _ = io.WriteString(w, "ok")
		}),
		ConnState: cl.ConnState,
	}
	go func() { _ = srv.Serve(cl) }()
	DeferCleanup(srv.Close)
	return ln.Addr().String()
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

// start sends a GET of path without reading the reply.
func (c *client) start(path string) {
	GinkgoHelper()
	_, err := fmt.Fprintf(c.conn, "GET %s HTTP/1.1\r\nHost: test\r\n\r\n", path)
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
		addr := server(connlimit.Limits{Total: 100, PerAddress: 3}, nil, nil)
		var idle []*client
		for range 3 {
			c := dial(addr, "127.0.0.1")
			Expect(c.get("/")).To(Equal("ok"))
			idle = append(idle, c)
		}
		fresh := dial(addr, "127.0.0.1")
		Expect(fresh.get("/")).To(Equal("ok"))
		Expect(idle[0].closed()).To(BeTrue(), "the longest idle")
		Expect(idle[1].get("/")).To(Equal("ok"))
		Expect(idle[2].get("/")).To(Equal("ok"))
	})

	It("closes a new connection at once when every connection of its address is busy", func() {
		started, release := make(chan struct{}), make(chan struct{})
		addr := server(connlimit.Limits{Total: 100, PerAddress: 2}, started, release)
		busy := []*client{dial(addr, "127.0.0.1"), dial(addr, "127.0.0.1")}
		for _, c := range busy {
			c.start("/block")
			<-started
		}
		Expect(dial(addr, "127.0.0.1").closed()).To(BeTrue())
		Expect(dial(addr, "127.0.0.2").get("/")).To(Equal("ok"), "another address has room")
		close(release)
		for _, c := range busy {
			resp, err := http.ReadResponse(c.r, nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Body.Close()).To(Succeed())
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
		addr := server(connlimit.Limits{Total: 3, PerAddress: 3}, nil, nil)
		var idle []*client
		for i := range 3 {
			c := dial(addr, fmt.Sprintf("127.0.0.%d", i+1))
			Expect(c.get("/")).To(Equal("ok"))
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
})
