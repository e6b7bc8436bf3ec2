package tools

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/afs"
	"github.com/conform-mcp/conform/impl/baseurl"
	"github.com/conform-mcp/conform/impl/caller"
	"github.com/conform-mcp/conform/impl/gate"
	"github.com/conform-mcp/conform/impl/request"
)

const ownerToken = "owner-token"

type ownerVerifier struct{}

func (ownerVerifier) Verify(_ context.Context, token string) (caller.Caller, error) {
	if token == ownerToken {
		return caller.Caller{ClientID: "client", Role: "owner"}, nil
	}
	return caller.Caller{}, errors.New("unknown credential")
}

// reply is what a client sees of an answer.
type reply struct {
	status       int
	contentType  string
	cacheControl string
	body         string
}

func replyOf(resp *http.Response) reply {
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.Body.Close()).To(Succeed())
	return reply{resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"), string(body)}
}

// twoPaths serves the same server behind the gate twice: as the host does,
// where a call the gate parsed may be served directly, and with the parsed
// body hidden, so that every request takes the SDK's streamable handler.
type twoPaths struct {
	direct, sdk *httptest.Server
	mu          sync.Mutex
	served      []bool // for each request to direct, whether it was served directly
	ran         []bool // and whether its tool ran without the SDK's server
}

func newTwoPaths() *twoPaths {
	mem, err := afs.NewMemory(map[string]string{"readme.md": "# Readme\n", "escape.html": "<p>&amp;</p>\u2028\"\\\t\n"}, time.Now)
	Expect(err).NotTo(HaveOccurred())
	base, err := afs.NewMemory(map[string]string{"notes.txt": "closed\n"}, time.Now)
	Expect(err).NotTo(HaveOccurred())
	fsys, err := afs.New([]afs.Mount{
		{Path: "/public", Provider: afs.ReadOnly(mem)},
		{Path: "/base", Provider: base},
	}, []string{"/public"}, afs.Limits{})
	Expect(err).NotTo(HaveOccurred())
	srv := New(Info{Name: "direct test", Version: "1"}, fsys, nil, 1)
	handler := srv.Handler()
	gated := func(h http.Handler) http.Handler {
		return gate.New(h, gate.Config{
			Verifier:       ownerVerifier{},
			AnonymousTools: srv.Anonymous(),
			ToolScopes:     srv.Scopes(),
			BaseURL:        baseurl.Resolver{},
		})
	}
	p := &twoPaths{}
	p.direct = httptest.NewServer(gated(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call, _, ok := directCall(r)
		ran := false
		if ok {
			_, _, ran = srv.directTool(r, call)
		}
		p.mu.Lock()
		p.served = append(p.served, ok)
		p.ran = append(p.ran, ran)
		p.mu.Unlock()
		handler.ServeHTTP(w, r)
	})))
	p.sdk = httptest.NewServer(gated(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler.ServeHTTP(w, r.WithContext(request.NewContext(r.Context(), nil)))
	})))
	DeferCleanup(p.direct.Close)
	DeferCleanup(p.sdk.Close)
	return p
}

func (p *twoPaths) post(srv *httptest.Server, header http.Header, body string) reply {
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+ownerToken)
	for k, vs := range header {
		req.Header.Del(k)
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if host := header.Get("Host"); host != "" {
		req.Host = host
	}
	resp, err := srv.Client().Do(req)
	Expect(err).NotTo(HaveOccurred())
	return replyOf(resp)
}

// modernRead is the params of a read as MCP 2026-07-28 sends them.
const modernRead = `{"name":"afs_read","arguments":{"path":"/public/readme.md"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`

func callBody(id, params string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}`
}

var _ = Describe("direct calls", func() {
	var p *twoPaths
	BeforeEach(func() { p = newTwoPaths() })

	DescribeTable("answer byte for byte as the SDK's streamable handler does",
		func(header http.Header, body string, direct bool) {
			viaSDK := p.post(p.sdk, header, body)
			got := p.post(p.direct, header, body)
			Expect(got).To(Equal(viaSDK))
			Expect(p.served).To(Equal([]bool{direct}), "served directly")
		},
		Entry("a read", nil, callBody("1", `{"name":"afs_read","arguments":{"path":"/public/readme.md"}}`), true),
		Entry("a read refused by gate 3", nil, callBody("2", `{"name":"afs_read","arguments":{"path":"/base/notes.txt"}}`), true),
		Entry("a read of a missing path", nil, callBody("3", `{"name":"afs_read","arguments":{"path":"/public/none"}}`), true),
		Entry("a string id", nil, callBody(`"req-7"`, `{"name":"afs_stat","arguments":{"path":"/public"}}`), true),
		Entry("a negative id", nil, callBody("-12", `{"name":"afs_list","arguments":{"path":"/public"}}`), true),
		Entry("a zero id", nil, callBody("0", `{"name":"afs_list","arguments":{"path":"/public"}}`), true),
		Entry("the largest id served directly", nil, callBody("999999999999999", `{"name":"afs_list","arguments":{"path":"/public"}}`), true),
		Entry("an unknown tool", nil, callBody("4", `{"name":"no_such_tool","arguments":{}}`), true),
		Entry("arguments of the wrong type", nil, callBody("5", `{"name":"afs_read","arguments":{"path":5}}`), true),
		Entry("params that are not an object", nil, `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":[1]}`, true),
		Entry("null params", nil, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":null}`, true),
		Entry("tools/list", nil, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, true),
		Entry("tools/list with a cursor", nil, `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"x"}}`, true),
		Entry("resources/list", nil, `{"jsonrpc":"2.0","id":8,"method":"resources/list"}`, true),
		Entry("prompts/list", nil, `{"jsonrpc":"2.0","id":8,"method":"prompts/list","params":{}}`, true),
		Entry("ping", nil, `{"jsonrpc":"2.0","id":9,"method":"ping"}`, true),
		Entry("initialize", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, true),
		Entry("initialize at an old version", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, true),
		Entry("initialize at an unknown version", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, true),
		Entry("a call at protocol version 2025-06-18", http.Header{"Mcp-Protocol-Version": {"2025-06-18"}}, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, true),
		Entry("a call at protocol version 2025-11-25", http.Header{"Mcp-Protocol-Version": {"2025-11-25"}}, callBody("1", `{"name":"afs_read","arguments":{"path":"/public/readme.md"}}`), true),
		Entry("a call at protocol version 2024-11-05", http.Header{"Mcp-Protocol-Version": {"2024-11-05"}}, callBody("1", `{"name":"afs_read","arguments":{"path":"/public/readme.md"}}`), true),
		Entry("a JSON-only Accept", http.Header{"Accept": {"application/json"}}, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, true),
		Entry("no Accept", http.Header{"Accept": nil}, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, true),
		// The host refuses foreign names before the gate (impl/host), so the
		// SDK's handler runs without its loopback-only check, and so do
		// direct calls.
		Entry("a foreign Host on a loopback listener", http.Header{"Host": {"tools.example"}}, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, true),

		// Left to the SDK's handler, which decides them at the HTTP level.
		Entry("tools/call without params", nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, false),
		Entry("initialize without params", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, false),
		Entry("an unsupported protocol version", http.Header{"Mcp-Protocol-Version": {"1999-01-01"}}, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, false),
		Entry("protocol version 2026-07-28", http.Header{"Mcp-Protocol-Version": {"2026-07-28"}}, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, false),
		Entry("request metadata", nil, callBody("1", `{"name":"afs_read","arguments":{"path":"/public/readme.md"},"_meta":{"progressToken":1}}`), false),
		Entry("a fractional id", nil, callBody("1.5", `{"name":"afs_list","arguments":{"path":"/public"}}`), false),
		Entry("an id with an exponent", nil, callBody("1e3", `{"name":"afs_list","arguments":{"path":"/public"}}`), false),
		Entry("an id of sixteen digits", nil, callBody("1000000000000000", `{"name":"afs_list","arguments":{"path":"/public"}}`), false),
		Entry("an id with an escape", nil, callBody(`"a\u0041"`, `{"name":"afs_list","arguments":{"path":"/public"}}`), false),
		Entry("a null id", nil, `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, false),
		Entry("a notification", nil, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, false),
		Entry("a batch", nil, `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, false),
		Entry("another JSON-RPC version", nil, `{"jsonrpc":"1.0","id":1,"method":"tools/list"}`, false),
		Entry("a method the server does not serve directly", nil, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"x"}}`, false),
		Entry("an unknown method", nil, `{"jsonrpc":"2.0","id":1,"method":"no/such"}`, false),
		Entry("an event-stream-only Accept", http.Header{"Accept": {"text/event-stream"}}, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, false),
		Entry("a Last-Event-ID", http.Header{"Last-Event-Id": {"x_1"}}, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, false),
	)

	// A tools/call whose params hold a name and arguments alone runs the
	// named tool without the SDK's server; anything else the server might
	// act on leaves the call to it.
	DescribeTable("run the server's own tools directly, answering byte for byte as the SDK's server does",
		func(params string, ran bool) {
			body := callBody("11", params)
			viaSDK := p.post(p.sdk, nil, body)
			got := p.post(p.direct, nil, body)
			Expect(got).To(Equal(viaSDK))
			Expect(p.served).To(Equal([]bool{true}), "served directly")
			Expect(p.ran).To(Equal([]bool{ran}), "the tool ran without the SDK's server")
		},
		Entry("a read", `{"name":"afs_read","arguments":{"path":"/public/readme.md"}}`, true),
		Entry("arguments in another order, with spaces", `{ "arguments" : { "path" : "/public" } , "name" : "afs_stat" }`, true),
		Entry("a read of text to escape", `{"name":"afs_read","arguments":{"path":"/public/escape.html"}}`, true),
		Entry("a write gate 3 refuses", `{"name":"afs_write","arguments":{"path":"/base/x.html","content":"<p>&amp;</p>"}}`, true),
		Entry("no arguments", `{"name":"afs_list"}`, true),
		Entry("null arguments", `{"name":"afs_list","arguments":null}`, true),
		Entry("arguments that are not an object", `{"name":"afs_read","arguments":[1]}`, true),
		Entry("an unknown argument", `{"name":"afs_read","arguments":{"path":"/public/readme.md","mode":"x"}}`, true),
		Entry("a tool the caller's role may not call", `{"name":"afs_exec","arguments":{"path":"/base/notes.txt"}}`, true),
		Entry("an unknown tool", `{"name":"no_such_tool","arguments":{}}`, false),
		Entry("a name with an escape", `{"name":"afs\u005fread","arguments":{"path":"/public/readme.md"}}`, false),
		Entry("a name that is not a string", `{"name":1,"arguments":{}}`, false),
		Entry("no name", `{"arguments":{}}`, false),
		Entry("a name in other letters", `{"Name":"afs_read","arguments":{"path":"/public/readme.md"}}`, false),
		Entry("input responses", `{"name":"afs_read","arguments":{"path":"/public/readme.md"},"inputResponses":{}}`, false),
		Entry("a request state", `{"name":"afs_read","arguments":{"path":"/public/readme.md"},"requestState":"x"}`, false),
		Entry("params that are not an object", `[1]`, false),
	)

	// MCP 2026-07-28 requests carry per-request _meta and mirror the method
	// and name into headers, which the server must check against the body
	// (transport, "Server Validation"). The direct path leaves every such
	// request to the SDK's handler, so both paths check alike.
	DescribeTable("answer MCP 2026-07-28 requests alike, decoding an encoded Mcp-Name and refusing header mismatches",
		func(header http.Header, params string, status int, contains string) {
			h := http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}}
			for k, v := range header {
				h[k] = v
			}
			body := callBody("1", params)
			viaSDK := p.post(p.sdk, h, body)
			got := p.post(p.direct, h, body)
			Expect(got).To(Equal(viaSDK))
			Expect(p.served).To(Equal([]bool{false}), "served directly")
			Expect(got.status).To(Equal(status), got.body)
			Expect(got.body).To(ContainSubstring(contains))
		},
		Entry("a read with its headers", http.Header{"Mcp-Name": {"afs_read"}}, modernRead, http.StatusOK, "# Readme"),
		Entry("Mcp-Name in the Base64 sentinel", http.Header{"Mcp-Name": {"=?base64?YWZzX3JlYWQ=?="}}, modernRead, http.StatusOK, "# Readme"),
		Entry("a sentinel that is not Base64", http.Header{"Mcp-Name": {"=?base64?not base64!?="}}, modernRead, http.StatusBadRequest, "-32020"),
		Entry("a sentinel naming another tool", http.Header{"Mcp-Name": {"=?base64?YWZzX2xpc3Q=?="}}, modernRead, http.StatusBadRequest, "-32020"),
		Entry("Mcp-Name naming another tool", http.Header{"Mcp-Name": {"afs_list"}}, modernRead, http.StatusBadRequest, "-32020"),
		Entry("no Mcp-Name", nil, modernRead, http.StatusBadRequest, "-32020"),
		Entry("no Mcp-Method", http.Header{"Mcp-Method": nil, "Mcp-Name": {"afs_read"}}, modernRead, http.StatusBadRequest, "-32020"),
		Entry("Mcp-Method naming another method", http.Header{"Mcp-Method": {"tools/list"}, "Mcp-Name": {"afs_read"}}, modernRead, http.StatusBadRequest, "-32020"),
		Entry("a version header _meta contradicts", http.Header{"Mcp-Name": {"afs_read"}},
			`{"name":"afs_read","arguments":{"path":"/public/readme.md"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}`,
			http.StatusBadRequest, "-32020"),
		Entry("a version the host does not speak", http.Header{"Mcp-Protocol-Version": {"2099-01-01"}, "Mcp-Name": {"afs_read"}},
			`{"name":"afs_read","arguments":{"path":"/public/readme.md"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}`,
			http.StatusBadRequest, "-32022"),
	)

	It("decides gate 1 from the body, never from the mirrored headers", func() {
		post := func(name, body string) reply {
			req, err := http.NewRequest(http.MethodPost, p.direct.URL+"/mcp", strings.NewReader(callBody("1", body)))
			Expect(err).NotTo(HaveOccurred())
			req.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
				"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {name}}
			resp, err := p.direct.Client().Do(req)
			Expect(err).NotTo(HaveOccurred())
			return replyOf(resp)
		}
		write := `{"name":"afs_write","arguments":{"path":"/public/x","content":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`
		Expect(post("afs_read", write).status).To(Equal(http.StatusUnauthorized), "a header naming an allowed tool opens nothing")
		got := post("afs_write", modernRead)
		Expect(got.status).To(Equal(http.StatusBadRequest), "the mismatch is refused, never served")
		Expect(got.body).To(ContainSubstring("-32020"))
	})

	It("serves concurrent calls each with its own reply", func() {
		var wg sync.WaitGroup
		for i := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer GinkgoRecover()
				id := `"c` + strings.Repeat("x", i) + `"`
				got := p.post(p.direct, nil, callBody(id, `{"name":"afs_read","arguments":{"path":"/public/readme.md"}}`))
				Expect(got.status).To(Equal(http.StatusOK))
				Expect(got.body).To(HavePrefix(`{"jsonrpc":"2.0","id":` + id + `,"result":`))
				Expect(got.body).To(ContainSubstring(`# Readme`))
			}()
		}
		wg.Wait()
		Expect(p.served).To(HaveLen(32))
		Expect(p.served).NotTo(ContainElement(false))
	})
})
