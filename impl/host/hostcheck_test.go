package host_test

import (
	"net/http"
	"net/http/httptest"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("The host's own URL and the names it answers for (issue 8 item 9)", func() {
	var srv *httptest.Server

	BeforeEach(func() {
		cfg := defaultConfig()
		cfg.PublicURL = "https://tools.example.test"
		cfg.AllowedHosts = []string{"proxy.internal"}
		srv = startHost(cfg, GinkgoT().TempDir())
	})

	// request sends method to path on the test server with Host set to host.
	request := func(method, path, host, body string) exchange {
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		Expect(err).NotTo(HaveOccurred())
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		return do(req)
	}
	toolsList := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	privileged := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"afs_write","arguments":{"path":"/overlay/x","content":"x"}}}`

	DescribeTable("refuses a foreign Host on every endpoint, before the endpoint looks at the request",
		func(method, path, body string) {
			ex := request(method, path, "attacker.example", body)
			Expect(ex.status).To(Equal(http.StatusMisdirectedRequest))
			Expect(string(ex.body)).To(HavePrefix("Misdirected Request: this host does not answer for the name in the Host header"))
			Expect(ex.header.Get("WWW-Authenticate")).To(BeEmpty())
		},
		Entry("MCP", http.MethodPost, "/mcp", toolsList),
		Entry("MCP, privileged", http.MethodPost, "/mcp", privileged),
		Entry("discovery", http.MethodGet, "/.well-known/mcp.json", ""),
		Entry("resource metadata", http.MethodGet, "/.well-known/oauth-protected-resource", ""),
		Entry("an unknown path", http.MethodGet, "/nowhere", ""),
	)

	DescribeTable("answers the public name, an allowed name and loopback names, with any port",
		func(host string) {
			Expect(request(http.MethodPost, "/mcp", host, toolsList).status).To(Equal(http.StatusOK))
		},
		Entry("public name", "tools.example.test"),
		Entry("public name, other case and a port", "Tools.Example.TEST.:443"),
		Entry("allowed name", "proxy.internal:8080"),
		Entry("localhost", "localhost:9"),
		Entry("IPv4 loopback", "127.0.0.1"),
		Entry("IPv6 loopback", "[::1]:8080"),
	)

	It("refuses a name that merely contains an allowed one", func() {
		Expect(request(http.MethodPost, "/mcp", "tools.example.test.attacker.example", toolsList).status).To(Equal(http.StatusMisdirectedRequest))
		Expect(request(http.MethodPost, "/mcp", "localhost.attacker.example", toolsList).status).To(Equal(http.StatusMisdirectedRequest))
	})

	It("prints the public URL whatever the Host header says", func() {
		ex := request(http.MethodPost, "/mcp", "localhost:1234", privileged)
		Expect(ex.status).To(Equal(http.StatusUnauthorized))
		Expect(ex.header.Get("WWW-Authenticate")).To(ContainSubstring(`resource_metadata="https://tools.example.test/.well-known/oauth-protected-resource"`))
		doc := request(http.MethodGet, "/.well-known/mcp.json", "proxy.internal", "")
		Expect(string(doc.body)).To(ContainSubstring(`"url":"https://tools.example.test/mcp"`))
	})

	// Issue 15 item 8: the official MCP conformance suite's
	// dns-rebinding-protection scenario sends Host and Origin naming
	// localhost while the public URL names another host.
	DescribeTable("judges the Origin of /mcp against the Host the request used, when that Host is allowed",
		func(host, origin string, status int) {
			req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(toolsList))
			Expect(err).NotTo(HaveOccurred())
			req.Host = host
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Origin", origin)
			Expect(do(req).status).To(Equal(status))
		},
		Entry("a loopback Host and its own origin", "localhost:8080", "http://localhost:8080", http.StatusOK),
		Entry("an allowed Host and its own origin", "proxy.internal", "http://proxy.internal", http.StatusOK),
		Entry("the public URL's origin", "localhost:8080", "https://tools.example.test", http.StatusOK),
		Entry("a foreign origin", "localhost:8080", "http://rebound.example:8080", http.StatusForbidden),
		Entry("the Host's name on another port", "localhost:8080", "http://localhost:9090", http.StatusForbidden),
	)
})
