package origin_test

import (
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/baseurl"
	"github.com/conform-mcp/conform/impl/origin"
)

var _ = Describe("the Origin guard", func() {
	var reached bool
	// allowed are the names an operator allows besides the public URL's
	// and loopback names (toolhost serve --allowed-host).
	allowed := []string{"proxy.example"}
	serve := func(public, host string, origins ...string) *httptest.ResponseRecorder {
		reached = false
		next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { reached = true })
		req := httptest.NewRequest(http.MethodPost, "http://"+host+"/mcp", nil)
		req.Host = host
		for _, o := range origins {
			req.Header.Add("Origin", o)
		}
		rec := httptest.NewRecorder()
		origin.Guard(next, baseurl.Resolver{Public: public}, baseurl.NewHosts(public, allowed)).ServeHTTP(rec, req)
		return rec
	}

	It("lets a request without an Origin through", func() {
		Expect(serve("", "127.0.0.1:8080").Code).To(Equal(http.StatusOK))
		Expect(reached).To(BeTrue())
	})

	DescribeTable("lets the host's own origin through",
		func(public, host, o string) {
			Expect(serve(public, host, o).Code).To(Equal(http.StatusOK))
			Expect(reached).To(BeTrue())
		},
		Entry("same scheme and authority", "", "127.0.0.1:8080", "http://127.0.0.1:8080"),
		Entry("in upper case", "", "localhost:8080", "HTTP://LOCALHOST:8080"),
		Entry("the default port made explicit", "https://tools.example", "10.0.0.1:8443", "https://tools.example:443"),
		// The official MCP conformance suite's dns-rebinding-protection
		// scenario: a page on localhost:PORT calling a host whose public
		// URL says 127.0.0.1:PORT is the same origin as the request.
		Entry("the request's loopback Host when the public URL names another", "http://127.0.0.1:8080", "localhost:8080", "http://localhost:8080"),
		Entry("the request's Host when a public URL is configured", "https://tools.example", "127.0.0.1:8080", "http://127.0.0.1:8080"),
		Entry("the request's allowed Host", "https://tools.example", "proxy.example", "http://proxy.example"),
	)

	DescribeTable("answers 403 with a JSON-RPC error without id, before the handler, for any other origin",
		func(public, host string, origins ...string) {
			rec := serve(public, host, origins...)
			Expect(rec.Code).To(Equal(http.StatusForbidden))
			Expect(rec.Body.String()).To(ContainSubstring(`"error"`))
			Expect(rec.Body.String()).NotTo(ContainSubstring(`"id"`))
			Expect(reached).To(BeFalse())
		},
		Entry("another site", "", "127.0.0.1:8080", "http://dns-rebinding.example"),
		Entry("another port", "", "127.0.0.1:8080", "http://127.0.0.1:9090"),
		Entry("another scheme", "", "127.0.0.1:8080", "https://127.0.0.1:8080"),
		Entry("the opaque origin", "", "127.0.0.1:8080", "null"),
		Entry("an empty value", "", "127.0.0.1:8080", ""),
		Entry("two origins", "", "127.0.0.1:8080", "http://127.0.0.1:8080", "http://evil.example"),
		Entry("the request's Host when the Host is not an allowed one", "https://tools.example", "rebound.example:8080", "http://rebound.example:8080"),
		Entry("the request's Host on another port", "http://127.0.0.1:8080", "localhost:8080", "http://localhost:9090"),
	)
})

var _ = DescribeTable("Same judges an origin against a URL",
	func(value, base string, want bool) { Expect(origin.Same(value, base)).To(Equal(want)) },
	Entry("the same origin", "https://tools.example", "https://tools.example/oauth/authorize?x=1", true),
	Entry("scheme and host in another case", "HTTPS://Tools.Example", "https://tools.example", true),
	Entry("the default port written", "https://tools.example:443", "https://tools.example/", true),
	Entry("the default port written in the URL", "http://127.0.0.1", "http://127.0.0.1:80/x", true),
	Entry("another port", "http://127.0.0.1:8080", "http://127.0.0.1:9090", false),
	Entry("another scheme", "http://tools.example", "https://tools.example", false),
	Entry("another host", "https://tools.example", "https://tools.example.attacker.example", false),
	Entry("an origin with a path", "https://tools.example/x", "https://tools.example", false),
	Entry("the opaque origin", "null", "https://tools.example", false),
)
