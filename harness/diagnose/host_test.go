package diagnose_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// credential is the only bearer token the fake hosts accept, unless a test
// says otherwise.
const credential = "conform-test-credential-5b1e"

// call is one tools/call a fake host received.
type call struct {
	auth string
	name string
	args map[string]any
}

// answer is what a fake host sends back: a JSON-RPC result, or a raw body.
type answer struct {
	status int
	header http.Header
	result any
	// rpcError, if set, is sent as the JSON-RPC error member instead of a result.
	rpcError map[string]any
	raw      string
	// rawType is the raw body's Content-Type.
	rawType string
}

// fakeHost is an MCP host built to fail at one step of source 7.5. Its
// tools/list and tools/call answers are decided per test; it speaks JSON or,
// with sse, an event stream.
type fakeHost struct {
	*httptest.Server
	// tools is what anonymous tools/list shows; authTools what it adds for
	// the credential.
	tools, authTools []string
	// accept says whether an Authorization value is a credential it issued.
	accept func(auth string) bool
	// onCall answers tools/call; the default is a successful read.
	onCall func(c call) answer
	sse    bool

	mu    sync.Mutex
	calls []call
}

func newFakeHost() *fakeHost {
	h := &fakeHost{
		tools:  []string{"afs_list", "afs_stat", "afs_read", "afs_write"},
		accept: func(auth string) bool { return auth == "Bearer "+credential },
		onCall: func(call) answer { return toolText(false, "hello") },
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /mcp", h.serveMCP)
	mux.HandleFunc("GET /.well-known/oauth-protected-resource", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, h.URL+"/mcp", h.URL)
	})
	// Anything else is a request the diagnosis should not have made.
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		defer GinkgoRecover()
		Fail("unexpected request " + r.Method + " " + r.URL.Path)
	})
	h.Server = httptest.NewServer(mux)
	DeferCleanup(h.Close)
	return h
}

func (h *fakeHost) serveMCP(w http.ResponseWriter, r *http.Request) {
	defer GinkgoRecover()
	body, err := io.ReadAll(r.Body)
	Expect(err).NotTo(HaveOccurred())
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	Expect(json.Unmarshal(body, &msg)).To(Succeed())
	auth := r.Header.Get("Authorization")
	if auth != "" && !h.accept(auth) {
		h.write(w, msg.ID, unauthorized(h.URL))
		return
	}
	var a answer
	switch msg.Method {
	case "notifications/initialized":
		w.WriteHeader(http.StatusAccepted)
		return
	case "initialize":
		a = answer{result: map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "serverInfo": map[string]any{"name": "fake", "version": "0"}}}
	case "tools/list":
		names := h.tools
		if auth != "" {
			names = append(slices.Clone(names), h.authTools...)
		}
		tools := make([]map[string]any, 0, len(names))
		for _, n := range names {
			tools = append(tools, map[string]any{"name": n, "inputSchema": map[string]any{"type": "object"}})
		}
		a = answer{result: map[string]any{"tools": tools}}
	case "tools/call":
		c := call{auth: auth, name: msg.Params.Name, args: msg.Params.Arguments}
		h.mu.Lock()
		h.calls = append(h.calls, c)
		h.mu.Unlock()
		a = h.onCall(c)
	default:
		a = answer{status: http.StatusNotFound, raw: "no such method", rawType: "text/plain"}
	}
	h.write(w, msg.ID, a)
}

func (h *fakeHost) write(w http.ResponseWriter, id json.RawMessage, a answer) {
	for k, vs := range a.header {
		w.Header()[k] = vs
	}
	status := a.status
	if status == 0 {
		status = http.StatusOK
	}
	if a.result == nil && a.rpcError == nil {
		w.Header().Set("Content-Type", a.rawType)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, a.raw)
		return
	}
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "result": a.result}
	if a.rpcError != nil {
		msg = map[string]any{"jsonrpc": "2.0", "id": id, "error": a.rpcError}
	}
	body, err := json.Marshal(msg)
	Expect(err).NotTo(HaveOccurred())
	if h.sse {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, ": keep-alive\n\nevent: message\ndata: %s\n\n", body)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// toolCalls returns the tools/call requests received, in order.
func (h *fakeHost) toolCalls() []call {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.calls)
}

// toolText is a CallToolResult with one text item.
func toolText(isError bool, text string) answer {
	return answer{result: map[string]any{
		"content": []map[string]any{{"type": "text", "text": text}},
		"isError": isError,
	}}
}

// unauthorized is the 401 of source 7.2.
func unauthorized(base string) answer {
	return answer{
		status: http.StatusUnauthorized,
		header: http.Header{"Www-Authenticate": {fmt.Sprintf(`Bearer realm="mcp", resource_metadata="%s/.well-known/oauth-protected-resource"`, base)}},
		raw:    `{"error":"Unauthorized"}`, rawType: "application/json",
	}
}

// byTool answers each tool by name; any other tool fails the test.
func byTool(answers map[string]func(call) answer) func(call) answer {
	return func(c call) answer {
		f, ok := answers[c.name]
		Expect(ok).To(BeTrue(), "unexpected tools/call of %s", c.name)
		return f(c)
	}
}

func fixed(a answer) func(call) answer { return func(call) answer { return a } }

// hasPrivileged answers an anonymous call of a privileged tool with 401, as
// the method allowlist of source 5.3 does.
func hasPrivileged(base string, privileged ...string) func(call) answer {
	return func(c call) answer {
		if c.auth == "" && slices.Contains(privileged, c.name) {
			return unauthorized(base)
		}
		return toolText(false, "ok")
	}
}

// names returns each call as "tool path".
func names(calls []call) []string {
	out := make([]string, 0, len(calls))
	for _, c := range calls {
		out = append(out, c.name+" "+fmt.Sprint(c.args["path"]))
	}
	return out
}

// plain is a fixed answer of a host that is not an MCP host.
type plain struct {
	status            int
	contentType, body string
}

// plainHost answers each "METHOD /path" pattern with a fixed answer.
func plainHost(routes map[string]plain) *httptest.Server {
	mux := http.NewServeMux()
	for pattern, p := range routes {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", p.contentType)
			w.WriteHeader(p.status)
			_, _ = io.WriteString(w, p.body)
		})
	}
	s := httptest.NewServer(mux)
	DeferCleanup(s.Close)
	return s
}
