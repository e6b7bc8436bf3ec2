package gate_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/baseurl"
	"github.com/conform-mcp/conform/impl/caller"
	"github.com/conform-mcp/conform/impl/gate"
	"github.com/conform-mcp/conform/impl/request"
)

const goodToken = "good-token"

type staticVerifier struct{}

func (staticVerifier) Verify(_ context.Context, token string) (caller.Caller, error) {
	if token == goodToken {
		return caller.Caller{ClientID: "client-1", Role: "owner"}, nil
	}
	return caller.Caller{}, errors.New("unknown credential")
}

// passed records what reached the handler behind the gate.
type passed struct {
	called bool
	caller caller.Caller
	body   string
	shared *request.Body
}

func newGate(p *passed) http.Handler {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		*p = passed{called: true, caller: caller.FromContext(r.Context()), body: string(body), shared: request.FromContext(r.Context())}
		w.WriteHeader(http.StatusOK)
	})
	return gate.New(next, gate.Config{
		Verifier:       staticVerifier{},
		AnonymousTools: []string{"afs_read", "afs_list", "afs_search", "afs_stat", "afs_explain"},
		BaseURL:        baseurl.Resolver{},
		MaxBodyBytes:   1024,
	})
}

func call(h http.Handler, auth []string, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "http://host.test/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for _, a := range auth {
		req.Header.Add("Authorization", a)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func rpc(method, params string) string {
	if params == "" {
		return `{"jsonrpc":"2.0","id":1,"method":"` + method + `"}`
	}
	return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
}

// emptyBatch is a batch of n empty objects: the cheapest entries to send.
func emptyBatch(n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat("{},", n), ",") + "]"
}

func toolCall(name string) string {
	return rpc("tools/call", `{"name":"`+name+`","arguments":{"path":"/"}}`)
}

var _ = Describe("Gate", func() {
	var (
		p passed
		h http.Handler
	)

	BeforeEach(func() {
		p = passed{}
		h = newGate(&p)
	})

	anonymous := []string(nil)
	bearer := []string{"Bearer " + goodToken}

	DescribeTable("gates 1 and 2: method x credential -> status",
		func(auth []string, body string, want int) {
			rec := call(h, auth, body)
			Expect(rec.Code).To(Equal(want))
			Expect(p.called).To(Equal(want == http.StatusOK))
		},
		Entry("anonymous initialize", anonymous, rpc("initialize", `{}`), 200),
		Entry("anonymous notifications/initialized", anonymous, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 200),
		Entry("anonymous ping, off source 5.3's closed list", anonymous, rpc("ping", ""), 401),
		Entry("anonymous tools/list", anonymous, rpc("tools/list", ""), 200),
		Entry("anonymous resources/list", anonymous, rpc("resources/list", ""), 200),
		Entry("anonymous prompts/list", anonymous, rpc("prompts/list", ""), 200),
		Entry("anonymous allowlisted afs_read", anonymous, toolCall("afs_read"), 200),
		Entry("anonymous allowlisted afs_explain", anonymous, toolCall("afs_explain"), 200),
		Entry("anonymous privileged afs_write", anonymous, toolCall("afs_write"), 401),
		Entry("anonymous privileged afs_exec", anonymous, toolCall("afs_exec"), 401),
		Entry("anonymous unknown tool", anonymous, toolCall("no_such_tool"), 401),
		Entry("anonymous content tool without collections", anonymous, toolCall("search_content"), 401),
		Entry("anonymous non-string tool name", anonymous, rpc("tools/call", `{"name":["afs_read"]}`), 401),
		Entry("anonymous tools/call without params", anonymous, rpc("tools/call", ""), 401),
		Entry("anonymous tools/call with null params", anonymous, rpc("tools/call", "null"), 401),
		Entry("anonymous unknown method", anonymous, rpc("resources/read", `{"uri":"x"}`), 401),
		Entry("anonymous non-string method", anonymous, `{"jsonrpc":"2.0","id":1,"method":7}`, 401),
		Entry("anonymous response message", anonymous, `{"jsonrpc":"2.0","id":1,"result":{}}`, 401),
		Entry("anonymous method name in another case", anonymous, `{"jsonrpc":"2.0","id":1,"Method":"tools/list"}`, 401),
		Entry("credential: privileged tool", bearer, toolCall("afs_write"), 200),
		Entry("credential: unknown tool reaches the SDK", bearer, toolCall("no_such_tool"), 200),
		Entry("credential: unknown method reaches the SDK", bearer, rpc("resources/read", `{}`), 200),
		Entry("unknown credential", []string{"Bearer other-token"}, rpc("tools/list", ""), 401),
		Entry("credential of another instance", []string{"Bearer issued-elsewhere"}, toolCall("afs_read"), 401),
		Entry("other scheme", []string{"Basic dXNlcjpwYXNz"}, rpc("tools/list", ""), 401),
		Entry("empty header", []string{""}, rpc("tools/list", ""), 401),
		Entry("scheme only", []string{"Bearer"}, rpc("tools/list", ""), 401),
		Entry("scheme and space only", []string{"Bearer "}, rpc("tools/list", ""), 401),
		Entry("garbage token", []string{"Bearer a b"}, rpc("tools/list", ""), 401),
		Entry("two headers", []string{"Bearer " + goodToken, "Bearer " + goodToken}, rpc("tools/list", ""), 401),
		Entry("lower-case scheme is the same scheme (RFC 7235 2.1)", []string{"bearer " + goodToken}, rpc("tools/list", ""), 200),
		Entry("anonymous batch of allowed calls", anonymous, "["+rpc("tools/list", "")+","+toolCall("afs_read")+"]", 200),
		Entry("anonymous batch with a privileged call", anonymous, "["+rpc("tools/list", "")+","+toolCall("afs_write")+"]", 401),
		Entry("anonymous batch with a non-object entry", anonymous, "["+rpc("tools/list", "")+",1]", 401),
		Entry("credential: batch with a privileged call", bearer, "["+rpc("tools/list", "")+","+toolCall("afs_write")+"]", 200),
		Entry("anonymous batch of the most entries, judged as usual", anonymous, emptyBatch(gate.MaxBatch), 401),
		Entry("credential: batch of the most entries", bearer, emptyBatch(gate.MaxBatch), 200),
	)

	// A batch over the bound is refused before anything is looked up, with
	// the same answer for every caller, so it tells nothing about a tool.
	DescribeTable("refuses a batch of more than MaxBatch entries",
		func(authorization []string) {
			rec := call(h, authorization, emptyBatch(gate.MaxBatch+1))
			Expect(rec.Code).To(Equal(http.StatusBadRequest))
			Expect(rec.Body.String()).To(MatchJSON(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a batch holds at most 64 messages"}}`))
		},
		Entry("anonymous", anonymous),
		Entry("with a credential", bearer),
		Entry("with an unknown credential", []string{"Bearer other-token"}),
	)

	// MCP 2025-06-18 removed JSON-RPC batching (changelog, "Remove support
	// for JSON-RPC batching"); 2024-11-05 and 2025-03-26, the revision a
	// request without MCP-Protocol-Version is read as, still have it.
	DescribeTable("refuses a batch for every revision that has none, for every caller, before anything is looked up",
		func(authorization []string, version string) {
			req := httptest.NewRequest(http.MethodPost, "http://host.test/mcp", strings.NewReader("["+rpc("tools/list", "")+"]"))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("MCP-Protocol-Version", version)
			for _, a := range authorization {
				req.Header.Add("Authorization", a)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			Expect(rec.Code).To(Equal(http.StatusBadRequest))
			Expect(rec.Body.String()).To(MatchJSON(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: MCP revision ` + version + ` has no JSON-RPC batches (removed in 2025-06-18); send one message per request"}}`))
			Expect(p.called).To(BeFalse())
		},
		Entry("2025-06-18, anonymous", anonymous, "2025-06-18"),
		Entry("2025-06-18, with a credential", bearer, "2025-06-18"),
		Entry("2025-11-25", bearer, "2025-11-25"),
		Entry("2026-07-28", bearer, "2026-07-28"),
		Entry("2026-07-28, with an unknown credential", []string{"Bearer other-token"}, "2026-07-28"),
		Entry("a revision the host does not know", bearer, "2099-01-01"),
	)

	DescribeTable("lets a batch through for the revisions that have batches",
		func(version string) {
			req := httptest.NewRequest(http.MethodPost, "http://host.test/mcp", strings.NewReader("["+rpc("tools/list", "")+"]"))
			req.Header.Set("Content-Type", "application/json")
			if version != "" {
				req.Header.Set("MCP-Protocol-Version", version)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			Expect(rec.Code).To(Equal(http.StatusOK))
			Expect(p.called).To(BeTrue())
		},
		Entry("no version header: 2025-03-26", ""),
		Entry("2025-03-26", "2025-03-26"),
		Entry("2024-11-05", "2024-11-05"),
	)

	It("lets a single message through for any revision", func() {
		req := httptest.NewRequest(http.MethodPost, "http://host.test/mcp", strings.NewReader(rpc("tools/list", "")))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		Expect(rec.Code).To(Equal(http.StatusOK))
	})

	It("puts the verified caller in the context and re-supplies the body", func() {
		body := toolCall("afs_write")
		Expect(call(h, bearer, body).Code).To(Equal(200))
		Expect(p.caller).To(Equal(caller.Caller{ClientID: "client-1", Role: "owner"}))
		Expect(p.body).To(Equal(body))
	})

	It("shares the messages it parsed, each member as it is in the body", func() {
		body := `{"jsonrpc":"2.0", "id":"a-1","method":"tools/call","params":{"name":"afs_read","arguments":{"path":"/"}}}`
		Expect(call(h, anonymous, body).Code).To(Equal(200))
		Expect(p.shared).To(Equal(&request.Body{Raw: []byte(body), Messages: []request.Message{{
			Object:    true,
			Version:   []byte(`"2.0"`),
			ID:        []byte(`"a-1"`),
			Method:    "tools/call",
			HasMethod: true,
			Params:    []byte(`{"name":"afs_read","arguments":{"path":"/"}}`),
			CallParams: map[string]json.RawMessage{
				"name":      []byte(`"afs_read"`),
				"arguments": []byte(`{"path":"/"}`),
			},
		}}}))
	})

	It("shares a batch entry by entry, absent members nil", func() {
		body := "[" + rpc("tools/list", "") + `, {"jsonrpc":"2.0","method":"notifications/initialized"}]`
		Expect(call(h, bearer, body).Code).To(Equal(200))
		Expect(p.shared.Batch).To(BeTrue())
		Expect(p.shared.Messages).To(Equal([]request.Message{
			{Object: true, Version: []byte(`"2.0"`), ID: []byte("1"), Method: "tools/list", HasMethod: true},
			{Object: true, Version: []byte(`"2.0"`), Method: "notifications/initialized", HasMethod: true},
		}))
	})

	It("leaves an anonymous caller anonymous", func() {
		Expect(call(h, anonymous, rpc("tools/list", "")).Code).To(Equal(200))
		Expect(p.caller.Anonymous()).To(BeTrue())
	})

	It("answers every 401 with the same body (source 7.2), and an anonymous caller byte for byte the same whatever it called (5.5)", func() {
		anonymousCauses := []*httptest.ResponseRecorder{
			call(h, anonymous, toolCall("afs_write")),
			call(h, anonymous, toolCall("no_such_tool")),
			call(h, anonymous, rpc("resources/read", `{}`)),
		}
		credentialCauses := []*httptest.ResponseRecorder{
			call(h, []string{"Bearer unknown"}, rpc("tools/list", "")),
			call(h, []string{"Basic x"}, rpc("tools/list", "")),
			call(h, []string{""}, rpc("tools/list", "")),
		}
		for _, rec := range append(anonymousCauses, credentialCauses...) {
			Expect(rec.Code).To(Equal(http.StatusUnauthorized))
			Expect(rec.Body.String()).To(Equal(`{"error":"Unauthorized"}`))
		}
		// RFC 6750 3: no error without a credential, invalid_token with one.
		for _, rec := range anonymousCauses {
			Expect(rec.Header()).To(Equal(http.Header{
				"Www-Authenticate": {`Bearer resource_metadata="http://host.test/.well-known/oauth-protected-resource"`},
				"Content-Type":     {"application/json"},
			}))
		}
		for _, rec := range credentialCauses {
			Expect(rec.Header()).To(Equal(http.Header{
				"Www-Authenticate": {`Bearer error="invalid_token", resource_metadata="http://host.test/.well-known/oauth-protected-resource"`},
				"Content-Type":     {"application/json"},
			}))
		}
	})

	DescribeTable("transport failures, whatever the tool",
		func(method, contentType, body string, auth []string, status int, rpcCode int) {
			req := httptest.NewRequest(method, "http://host.test/mcp", strings.NewReader(body))
			if contentType != "" {
				req.Header.Set("Content-Type", contentType)
			}
			for _, a := range auth {
				req.Header.Add("Authorization", a)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			Expect(rec.Code).To(Equal(status))
			Expect(rec.Header().Get("Content-Type")).To(Equal("application/json"))
			var reply struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			Expect(json.Unmarshal(rec.Body.Bytes(), &reply)).To(Succeed())
			Expect(reply.JSONRPC).To(Equal("2.0"))
			Expect(string(reply.ID)).To(Equal("null"))
			Expect(reply.Error.Code).To(Equal(rpcCode))
			Expect(reply.Error.Message).NotTo(BeEmpty())
			Expect(p.called).To(BeFalse())
		},
		Entry("GET", http.MethodGet, "", "", anonymous, 405, -32600),
		Entry("DELETE with a credential", http.MethodDelete, "", "", bearer, 405, -32600),
		Entry("text/plain", http.MethodPost, "text/plain", toolCall("afs_read"), anonymous, 415, -32600),
		Entry("no content type", http.MethodPost, "", toolCall("afs_write"), anonymous, 415, -32600),
		Entry("body over the limit", http.MethodPost, "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"`+strings.Repeat("x", 2000)+`"}}`, anonymous, 413, -32600),
		Entry("malformed JSON", http.MethodPost, "application/json", `{"jsonrpc":"2.0",`, anonymous, 400, -32700),
		Entry("trailing garbage", http.MethodPost, "application/json", rpc("tools/list", "")+"x", anonymous, 400, -32700),
		Entry("empty body", http.MethodPost, "application/json", "", anonymous, 400, -32700),
		Entry("empty batch", http.MethodPost, "application/json", "[]", anonymous, 400, -32600),
		Entry("lone non-object", http.MethodPost, "application/json", `"tools/list"`, anonymous, 400, -32600),
		Entry("duplicate method key", http.MethodPost, "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"afs_write"}}`, anonymous, 400, -32600),
		Entry("duplicate tool name key", http.MethodPost, "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"afs_read","name":"afs_write"}}`, anonymous, 400, -32600),
	)

	It("sends Allow: POST with a 405 (RFC 9110 15.5.6)", func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://host.test/mcp", nil))
		Expect(rec.Header().Get("Allow")).To(Equal("POST"))
	})

	It("accepts a JSON content type with parameters", func() {
		req := httptest.NewRequest(http.MethodPost, "http://host.test/mcp", strings.NewReader(rpc("tools/list", "")))
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		Expect(rec.Code).To(Equal(200))
	})
})
