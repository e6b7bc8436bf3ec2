package clientaddr_test

import (
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/clientaddr"
)

var _ = Describe("Client address", func() {
	request := func(remote string, forwarded ...string) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = remote
		for _, f := range forwarded {
			r.Header.Add("X-Forwarded-For", f)
		}
		return r
	}
	resolver := func(proxies ...string) clientaddr.Resolver {
		GinkgoHelper()
		r, err := clientaddr.New(proxies)
		Expect(err).NotTo(HaveOccurred())
		return r
	}

	DescribeTable("keys a request on the address it believes",
		func(proxies []string, remote string, forwarded []string, key string) {
			Expect(resolver(proxies...).Key(request(remote, forwarded...))).To(Equal(key))
		},
		Entry("the connection's address when no proxy is trusted, whatever the header says",
			nil, "192.0.2.7:5000", []string{"203.0.113.9"}, "192.0.2.7"),
		Entry("the connection's address when it is not a trusted proxy",
			[]string{"10.0.0.0/8"}, "192.0.2.7:5000", []string{"203.0.113.9"}, "192.0.2.7"),
		Entry("the forwarded address from a trusted proxy",
			[]string{"10.0.0.0/8"}, "10.1.2.3:5000", []string{"203.0.113.9"}, "203.0.113.9"),
		Entry("the rightmost untrusted address, not what the client wrote before it",
			[]string{"10.0.0.0/8"}, "10.1.2.3:5000", []string{"198.51.100.1, 203.0.113.9, 10.9.9.9"}, "203.0.113.9"),
		Entry("every header line, in order",
			[]string{"10.0.0.0/8"}, "10.1.2.3:5000", []string{"198.51.100.1", "203.0.113.9"}, "203.0.113.9"),
		Entry("a single trusted proxy address",
			[]string{"127.0.0.1"}, "127.0.0.1:5000", []string{"203.0.113.9"}, "203.0.113.9"),
		Entry("the proxy itself when it forwards nothing",
			[]string{"10.0.0.0/8"}, "10.1.2.3:5000", nil, "10.1.2.3"),
		Entry("the last address believed when an entry is not an address",
			[]string{"10.0.0.0/8"}, "10.1.2.3:5000", []string{"203.0.113.9, unknown, 10.9.9.9"}, "10.9.9.9"),
		Entry("a forwarded address written with its port",
			[]string{"10.0.0.0/8"}, "10.1.2.3:5000", []string{"203.0.113.9:41234"}, "203.0.113.9"),
		Entry("a forwarded IPv6 address written with its port",
			[]string{"10.0.0.0/8"}, "10.1.2.3:5000", []string{"[2001:db8:1:2::9]:443"}, "2001:db8:1:2::/64"),
		Entry("the leftmost when every hop is trusted",
			[]string{"10.0.0.0/8"}, "10.1.2.3:5000", []string{"10.7.7.7, 10.9.9.9"}, "10.7.7.7"),
		Entry("an IPv6 client by its /64",
			[]string{"10.0.0.0/8"}, "10.1.2.3:5000", []string{"2001:db8:1:2:3:4:5:6"}, "2001:db8:1:2::/64"),
		Entry("an IPv4-mapped connection as IPv4",
			[]string{"10.0.0.0/8"}, "[::ffff:10.1.2.3]:5000", []string{"203.0.113.9"}, "203.0.113.9"),
		Entry("an IPv6 connection by its /64", nil, "[2001:db8:1:2:3:4:5:6]:443", nil, "2001:db8:1:2::/64"),
		Entry("an IPv4-mapped connection as IPv4 without proxies", nil, "[::ffff:192.0.2.7]:5555", nil, "192.0.2.7"),
		Entry("a connection address that is not an IP as it is",
			[]string{"10.0.0.0/8"}, "pipe", []string{"203.0.113.9"}, "pipe"),
	)

	It("refuses a trusted proxy that is neither an address nor a prefix", func() {
		_, err := clientaddr.New([]string{"proxy.example"})
		Expect(err).To(MatchError(ContainSubstring(`trusted proxy "proxy.example"`)))
	})
})
