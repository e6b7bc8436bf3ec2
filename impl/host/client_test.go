package host_test

import (
	"context"
	"net/http"
	"net/http/httptest"

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
