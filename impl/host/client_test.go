package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds a credential to every request of a real MCP client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(req)
}

// connect opens a session with the SDK's own client, which sends initialize
// and notifications/initialized before anything else.
func connect(ctx context.Context, srv *httptest.Server, token string) *mcp.ClientSession {
	httpClient := srv.Client()
	if token != "" {
		httpClient = &http.Client{Transport: bearer{token: token, next: srv.Client().Transport}}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "conform-test-client", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: httpClient}, nil)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(session.Close)
	return session
}

func firstText(r *mcp.CallToolResult) string {
	Expect(r.Content).NotTo(BeEmpty())
	t, ok := r.Content[0].(*mcp.TextContent)
	Expect(ok).To(BeTrue())
	return t.Text
}

var _ = Describe("Reference host with a real MCP client", func() {
	var srv *httptest.Server

	BeforeEach(func() { srv = startHost(defaultConfig(), GinkgoT().TempDir()) })

	It("initialises, lists and calls tools anonymously", func(ctx SpecContext) {
		session := connect(ctx, srv, "")
		Expect(session.InitializeResult().ServerInfo.Name).To(Equal("conform reference host"))

		tools, err := session.ListTools(ctx, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(tools.Tools).To(HaveLen(8))

		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "afs_read", Arguments: map[string]any{"path": "/public/readme.md"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.IsError).To(BeFalse())
		Expect(firstText(res)).To(HavePrefix("# Public readme"))

		res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "afs_read", Arguments: map[string]any{"path": "/base/notes.txt"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.IsError).To(BeTrue())
		Expect(firstText(res)).To(HavePrefix("AFS_FORBIDDEN: Forbidden at /base/notes.txt"))

		_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "afs_write", Arguments: map[string]any{"path": "/overlay/scratch.txt", "content": "x"}})
		Expect(err).To(MatchError(ContainSubstring("Unauthorized")))
	})

	It("calls a privileged tool with a credential", func(ctx SpecContext) {
		session := connect(ctx, srv, staticToken)
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "afs_write", Arguments: map[string]any{"path": "/overlay/scratch.txt", "content": "from a client"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.IsError).To(BeFalse(), firstText(res))

		res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "afs_stat", Arguments: map[string]any{"path": "/overlay/scratch.txt"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(firstText(res)).To(ContainSubstring("caller: owner"))
	})
})

// recorder notes what a real client POSTs and what it gets: each message's
// JSON-RPC method, version header and status. (Its GET for a standalone
// stream is answered 405 by the stateless host, at a moment of the client's
// choosing, and is left out.)
type recorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var m struct {
		Method string `json:"method"`
	}
	if req.Body != nil {
		body, _ := io.ReadAll(req.Body)
		_ = json.Unmarshal(body, &m)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := r.next.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost {
		r.mu.Lock()
		r.seen = append(r.seen, fmt.Sprintf("%s %s %d", m.Method, req.Header.Get("Mcp-Protocol-Version"), resp.StatusCode))
		r.mu.Unlock()
	}
	return resp, err
}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

// The Go SDK's client (v1.8) tries MCP 2026-07-28's server/discover first
// and falls back to initialize on any answer that is no modern JSON-RPC
// error. The source's anonymous list (5.3) names initialize and not
// server/discover, so an anonymous client meets the 401 first and goes on in
// 2025-11-25; a client with a credential stays stateless.
var _ = Describe("Reference host with the Go SDK's client, which speaks 2026-07-28 first", func() {
	var srv *httptest.Server

	BeforeEach(func() { srv = startHost(defaultConfig(), GinkgoT().TempDir()) })

	connectRecorded := func(ctx context.Context, token string) (*mcp.ClientSession, *recorder) {
		rec := &recorder{next: srv.Client().Transport}
		var rt http.RoundTripper = rec
		if token != "" {
			rt = bearer{token: token, next: rec}
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "conform-test-client", Version: "1"}, nil)
		session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: &http.Client{Transport: rt}}, nil)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(session.Close)
		return session, rec
	}

	It("anonymously meets the 401 on server/discover, falls back to initialize, and reads", func(ctx SpecContext) {
		session, rec := connectRecorded(ctx, "")
		Expect(session.InitializeResult().ProtocolVersion).To(Equal("2025-11-25"))
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "afs_read", Arguments: map[string]any{"path": "/public/readme.md"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.IsError).To(BeFalse())
		Expect(rec.all()).To(Equal([]string{
			"server/discover 2026-07-28 401",
			"initialize  200",
			"notifications/initialized 2025-11-25 202",
			"tools/call 2025-11-25 200",
		}))
	})

	It("with a credential discovers, stays stateless in 2026-07-28, lists and reads", func(ctx SpecContext) {
		session, rec := connectRecorded(ctx, staticToken)
		Expect(session.InitializeResult().ProtocolVersion).To(Equal("2026-07-28"))
		tools, err := session.ListTools(ctx, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(tools.Tools).NotTo(BeEmpty())
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "afs_read", Arguments: map[string]any{"path": "/public/readme.md"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(firstText(res)).To(HavePrefix("# Public readme"))
		Expect(rec.all()).To(Equal([]string{
			"server/discover 2026-07-28 200",
			"tools/list 2026-07-28 200",
			"tools/call 2026-07-28 200",
		}))
	})
})
