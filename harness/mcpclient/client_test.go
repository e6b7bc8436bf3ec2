package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/wire"
)

// rpc is a JSON-RPC message as a fake host reads it.
type rpc struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// seen is one request a fake host received.
type seen struct {
	header http.Header
	body   []byte
	msg    rpc
}

// fakeHost is an MCP endpoint whose answers each test decides.
type fakeHost struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []seen
}

func newHost(answer http.HandlerFunc) *fakeHost {
	h := &fakeHost{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m rpc
		_ = json.Unmarshal(body, &m)
		h.mu.Lock()
		h.reqs = append(h.reqs, seen{r.Header.Clone(), body, m})
		h.mu.Unlock()
		answer(w, withMessage(r, m))
	}))
	DeferCleanup(h.Close)
	return h
}

type msgKey struct{}

func withMessage(r *http.Request, m rpc) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), msgKey{}, m))
}

func message(r *http.Request) rpc { return r.Context().Value(msgKey{}).(rpc) }

func (h *fakeHost) endpoint() string { return h.URL + "/mcp" }

func (h *fakeHost) requests() []seen {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]seen(nil), h.reqs...)
}

func (h *fakeHost) methods() []string {
	var out []string
	for _, s := range h.requests() {
		out = append(out, s.msg.Method)
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func result(m rpc, v any) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": v}
}

// negotiating answers like a stateless host that chooses the given version.
func negotiating(version string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		m := message(r)
		switch {
		case m.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "initialize":
			writeJSON(w, http.StatusOK, result(m, map[string]any{
				"protocolVersion": version,
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "fake", "version": "1"},
			}))
		case m.Method == "tools/list":
			writeJSON(w, http.StatusOK, result(m, map[string]any{"tools": []any{
				map[string]any{"name": "afs_list", "inputSchema": map[string]any{"type": "object"}},
				map[string]any{"name": "afs_write", "inputSchema": map[string]any{"type": "object"}},
			}}))
		default:
			writeJSON(w, http.StatusOK, result(m, map[string]any{
				"content": []any{map[string]any{"type": "text", "text": "AFS_NOT_FOUND: Path not found: /x"}},
				"isError": true,
			}))
		}
	}
}

// stateless answers like the reference host: no session, JSON replies.
var stateless = negotiating("2025-06-18")

func call(c *mcpclient.Client, auth, method string, params any) *mcpclient.Reply {
	GinkgoHelper()
	r, err := c.Call(context.Background(), auth, method, params)
	Expect(err).NotTo(HaveOccurred())
	Expect(r).NotTo(BeNil())
	return r
}

var _ = Describe("Client", func() {
	Context("against a stateless JSON host", func() {
		var (
			host *fakeHost
			c    *mcpclient.Client
		)
		BeforeEach(func() {
			host = newHost(stateless)
			c = legacy(host)
		})

		It("opens with initialize and notifications/initialized, then sends the call", func() {
			r := call(c, "", "tools/list", nil)
			Expect(r.Status).To(Equal(http.StatusOK))
			Expect(host.methods()).To(Equal([]string{"initialize", "notifications/initialized", "tools/list"}))
			Expect(r.Exchanges).To(HaveLen(3))
			Expect(r.Last().RequestBody).To(ContainSubstring(`"method":"tools/list"`))

			names, err := r.ToolNames()
			Expect(err).NotTo(HaveOccurred())
			Expect(names).To(Equal([]string{"afs_list", "afs_write"}))
		})

		It("offers protocol 2025-06-18 with empty capabilities and names itself", func() {
			call(c, "", "tools/list", nil)
			var init struct {
				ProtocolVersion string                     `json:"protocolVersion"`
				Capabilities    map[string]json.RawMessage `json:"capabilities"`
				ClientInfo      struct{ Name, Version string }
			}
			Expect(json.Unmarshal(host.requests()[0].msg.Params, &init)).To(Succeed())
			Expect(init.ProtocolVersion).To(Equal("2025-06-18"))
			Expect(init.Capabilities).NotTo(BeNil())
			Expect(init.Capabilities).To(BeEmpty())
			Expect(init.ClientInfo.Name).To(Equal("conform"))
			Expect(init.ClientInfo.Version).NotTo(BeEmpty())
		})

		It("sends the transport's headers on every POST and no session id to a stateless host", func() {
			call(c, "", "tools/list", nil)
			reqs := host.requests()
			for _, s := range reqs {
				Expect(s.header.Get("Content-Type")).To(Equal("application/json"))
				Expect(s.header.Get("Accept")).To(Equal("application/json, text/event-stream"))
				Expect(s.header.Values("Mcp-Session-Id")).To(BeEmpty())
			}
			Expect(reqs[0].header.Values("MCP-Protocol-Version")).To(BeEmpty(), "initialize carries its version in the body")
			Expect(reqs[1].header.Get("MCP-Protocol-Version")).To(Equal("2025-06-18"))
			Expect(reqs[2].header.Get("MCP-Protocol-Version")).To(Equal("2025-06-18"))
		})

		It("shakes hands once per auth value and keeps ids increasing", func() {
			call(c, "", "tools/list", nil)
			again := call(c, "", "tools/call", map[string]any{"name": "afs_list", "arguments": map[string]any{"path": "/x"}})
			Expect(again.Exchanges).To(HaveLen(1))
			other := call(c, "Bearer other", "tools/list", nil)
			Expect(other.Exchanges).To(HaveLen(3))

			var ids []int
			for _, s := range host.requests() {
				if s.msg.ID == nil {
					Expect(s.body).NotTo(ContainSubstring(`"id"`))
					continue
				}
				id, err := strconv.Atoi(string(s.msg.ID))
				Expect(err).NotTo(HaveOccurred())
				ids = append(ids, id)
			}
			Expect(ids).To(HaveLen(5))
			for i := 1; i < len(ids); i++ {
				Expect(ids[i]).To(BeNumerically(">", ids[i-1]))
			}
		})

		It("decodes a tool result with isError", func() {
			r := call(c, "", "tools/call", map[string]any{"name": "afs_read", "arguments": map[string]any{"path": "/x"}})
			tr, err := r.ToolResult()
			Expect(err).NotTo(HaveOccurred())
			Expect(tr.IsError).To(BeTrue())
			Expect(tr.Text).To(Equal("AFS_NOT_FOUND: Path not found: /x"))
		})
	})

	It("sends the version the host chose in initialize", func() {
		host := newHost(negotiating("2025-03-26"))
		c := legacy(host)
		call(c, "", "tools/list", nil)
		Expect(host.requests()[2].header.Get("MCP-Protocol-Version")).To(Equal("2025-03-26"))
	})

	Context("against a host that answers in an event stream", func() {
		var host *fakeHost
		BeforeEach(func() {
			host = newHost(func(w http.ResponseWriter, r *http.Request) {
				m := message(r)
				if m.Method != "tools/call" {
					stateless(w, r)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				fmt.Fprint(w, ": keep-alive\r\n\r\n")
				fmt.Fprint(w, "event: message\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n")
				fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}\n\n")
				fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":999999,\"result\":{\"content\":[]}}\n\n")
				fmt.Fprintf(w, "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata:\"id\":%s,\r\ndata: \"result\":{\"content\":[{\"type\":\"text\",\"text\":\"one\"},{\"type\":\"image\",\"data\":\"AA==\",\"mimeType\":\"image/png\"},{\"type\":\"text\",\"text\":\"two\"}],\r\n", m.ID)
				fmt.Fprint(w, "data: \"structuredContent\":{\"size\":3}}}\r\n\r\n")
				w.(http.Flusher).Flush()
				// The stream stays open: the client must stop at its response.
				<-r.Context().Done()
			})
		})

		It("passes over notifications, server requests and other responses to reach its own", func() {
			c := legacy(host)
			r := call(c, "", "tools/call", map[string]any{"name": "afs_stat", "arguments": map[string]any{"path": "/x"}})
			Expect(r.Status).To(Equal(http.StatusOK))
			Expect(r.Message).NotTo(BeNil())
			Expect(r.Message.JSONRPC).To(Equal("2.0"))
			Expect(string(r.Body)).To(ContainSubstring("notifications/progress"))

			tr, err := r.ToolResult()
			Expect(err).NotTo(HaveOccurred())
			Expect(tr.IsError).To(BeFalse())
			Expect(tr.Text).To(Equal("one\ntwo"))
			Expect(tr.Content).To(HaveLen(3))
			Expect(tr.Structured).To(MatchJSON(`{"size":3}`))
		})
	})

	Context("against a host that requires sessions", func() {
		var (
			host   *fakeHost
			mu     sync.Mutex
			issued int
			ended  map[string]bool
			expire bool
		)
		BeforeEach(func() {
			issued, ended, expire = 0, map[string]bool{}, false
			host = newHost(func(w http.ResponseWriter, r *http.Request) {
				m := message(r)
				sid := r.Header.Get("Mcp-Session-Id")
				mu.Lock()
				defer mu.Unlock()
				if m.Method == "initialize" {
					if sid != "" {
						writeJSON(w, http.StatusBadRequest, map[string]any{"error": "initialize carries no session"})
						return
					}
					issued++
					w.Header().Set("Mcp-Session-Id", fmt.Sprintf("sess-%d", issued))
					stateless(w, r)
					return
				}
				known := false
				for i := 1; i <= issued; i++ {
					known = known || sid == fmt.Sprintf("sess-%d", i)
				}
				switch {
				case !known:
					writeJSON(w, http.StatusBadRequest, map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32600, "message": "Bad Request: no valid session id"}})
				case ended[sid]:
					w.WriteHeader(http.StatusNotFound)
				case expire && m.Method == "tools/list":
					expire = false
					ended[sid] = true
					w.WriteHeader(http.StatusNotFound)
				default:
					stateless(w, r)
				}
			})
		})

		It("carries the issued session id on every later request", func() {
			c := legacy(host)
			r := call(c, "", "tools/list", nil)
			Expect(r.Status).To(Equal(http.StatusOK))
			reqs := host.requests()
			Expect(reqs[1].header.Get("Mcp-Session-Id")).To(Equal("sess-1"))
			Expect(reqs[2].header.Get("Mcp-Session-Id")).To(Equal("sess-1"))
		})

		It("starts a new session once when the host says the session has ended", func() {
			c := legacy(host)
			call(c, "", "tools/call", map[string]any{"name": "afs_list"})
			mu.Lock()
			expire = true
			mu.Unlock()

			r := call(c, "", "tools/list", nil)
			Expect(r.Status).To(Equal(http.StatusOK))
			Expect(r.Exchanges).To(HaveLen(4))
			Expect(r.Exchanges[0].Status).To(Equal(http.StatusNotFound))
			Expect(r.Exchanges[1].RequestBody).To(ContainSubstring(`"method":"initialize"`))
			Expect(r.Exchanges[1].RequestHeader).NotTo(HaveKey("Mcp-Session-Id"))
			Expect(r.Last().RequestHeader["Mcp-Session-Id"]).To(Equal([]string{"sess-2"}))
			_, err := r.ToolNames()
			Expect(err).NotTo(HaveOccurred())
		})

		It("retries only once when every session ends at once", func() {
			c := legacy(host)
			call(c, "", "tools/call", map[string]any{"name": "afs_list"})
			mu.Lock()
			for i := 1; i <= 10; i++ {
				ended[fmt.Sprintf("sess-%d", i)] = true
			}
			mu.Unlock()

			r := call(c, "", "tools/list", nil)
			Expect(r.Status).To(Equal(http.StatusNotFound))
			Expect(r.Exchanges).To(HaveLen(4))
			Expect(host.methods()).To(HaveLen(7))
		})

		It("keeps the session a caller opens with its own initialize", func() {
			c := legacy(host)
			init := call(c, "", "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "0"}})
			Expect(init.Exchanges).To(HaveLen(1))
			Expect(init.Header.Get("Mcp-Session-Id")).To(Equal("sess-1"))

			// The next call completes that handshake, then goes in the same session.
			r := call(c, "", "tools/list", nil)
			Expect(r.Exchanges).To(HaveLen(2))
			Expect(r.Status).To(Equal(http.StatusOK))
			Expect(host.methods()).To(Equal([]string{"initialize", "notifications/initialized", "tools/list"}))
			for _, req := range host.requests()[1:] {
				Expect(req.header.Get("Mcp-Session-Id")).To(Equal("sess-1"))
			}

			r = call(c, "", "tools/list", nil)
			Expect(r.Exchanges).To(HaveLen(1))
		})

		It("keeps one session per auth value", func() {
			c := legacy(host)
			call(c, "Bearer a", "tools/list", nil)
			call(c, "Bearer b", "tools/list", nil)
			call(c, "Bearer a", "tools/list", nil)
			reqs := host.requests()
			Expect(reqs).To(HaveLen(7))
			Expect(reqs[2].header.Get("Mcp-Session-Id")).To(Equal("sess-1"))
			Expect(reqs[5].header.Get("Mcp-Session-Id")).To(Equal("sess-2"))
			Expect(reqs[6].header.Get("Mcp-Session-Id")).To(Equal("sess-1"))
			Expect(reqs[6].header.Get("Authorization")).To(Equal("Bearer a"))
		})

		It("sends in another auth value's session, opening none of its own, and sends nothing when that one has none", func() {
			c := legacy(host)
			_, ok, err := c.CallInSession(context.Background(), "", "Bearer a", "tools/list", nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeFalse())
			Expect(host.requests()).To(BeEmpty())

			call(c, "Bearer a", "tools/list", nil)
			r, ok, err := c.CallInSession(context.Background(), "", "Bearer a", "tools/list", nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeTrue())
			Expect(r.Status).To(Equal(http.StatusOK))
			reqs := host.requests()
			Expect(reqs).To(HaveLen(4))
			Expect(reqs[3].msg.Method).To(Equal("tools/list"))
			Expect(reqs[3].header.Get("Mcp-Session-Id")).To(Equal("sess-1"))
			Expect(reqs[3].header.Values("Authorization")).To(BeEmpty())
		})

		It("shakes hands once when many calls start together", func() {
			c := legacy(host)
			var wg sync.WaitGroup
			statuses := make([]int, 8)
			for i := range statuses {
				wg.Add(1)
				go func() {
					defer GinkgoRecover()
					defer wg.Done()
					r, err := c.Call(context.Background(), "", "tools/list", nil)
					Expect(err).NotTo(HaveOccurred())
					statuses[i] = r.Status
				}()
			}
			wg.Wait()
			Expect(statuses).To(HaveEach(http.StatusOK))
			count := 0
			ids := map[string]bool{}
			for _, s := range host.requests() {
				if s.msg.Method == "initialize" {
					count++
				}
				if s.msg.ID != nil {
					Expect(ids).NotTo(HaveKey(string(s.msg.ID)))
					ids[string(s.msg.ID)] = true
				}
			}
			Expect(count).To(Equal(1))
		})

		It("sends raw bodies as given, within the session", func() {
			c := legacy(host)
			r, err := c.Send(context.Background(), "", "text/plain", []byte(`{"jsonrpc":`))
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Exchanges).To(HaveLen(3))
			last := host.requests()[2]
			Expect(string(last.body)).To(Equal(`{"jsonrpc":`))
			Expect(last.header.Get("Content-Type")).To(Equal("text/plain"))
			Expect(last.header.Get("Mcp-Session-Id")).To(Equal("sess-1"))
		})
	})

	Context("against a host that answers 401 to everything", func() {
		const secret = "Bearer s3cr3t-credential"
		var host *fakeHost
		BeforeEach(func() {
			host = newHost(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://h/.well-known/oauth-protected-resource"`)
				writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "Unauthorized"})
			})
		})

		It("returns the call's own 401, with the refused handshake before it", func() {
			c := legacy(host)
			r := call(c, secret, "tools/call", map[string]any{"name": "afs_write"})
			Expect(r.Status).To(Equal(http.StatusUnauthorized))
			Expect(r.Header.Get("WWW-Authenticate")).To(HavePrefix("Bearer "))
			Expect(r.Message).To(BeNil())
			Expect(r.Body).To(MatchJSON(`{"error":"Unauthorized"}`))
			Expect(host.methods()).To(Equal([]string{"initialize", "tools/call"}))
			Expect(r.Exchanges).To(HaveLen(2))
			Expect(r.Exchanges[0].RequestBody).To(ContainSubstring(`"method":"initialize"`))
			Expect(r.Last().RequestBody).To(ContainSubstring(`"method":"tools/call"`))
			Expect(r.Last().Status).To(Equal(http.StatusUnauthorized))
			_, err := r.ToolResult()
			Expect(err).To(MatchError(ContainSubstring("HTTP 401")))
		})

		It("masks the credential in every exchange but sends it to the host", func() {
			c := legacy(host)
			r := call(c, secret, "tools/list", nil)
			for _, ex := range r.Exchanges {
				Expect(ex.RequestHeader["Authorization"]).To(Equal([]string{"Bearer " + wire.Masked}))
				Expect(ex.String()).NotTo(ContainSubstring("s3cr3t"))
			}
			for _, s := range host.requests() {
				Expect(s.header.Get("Authorization")).To(Equal(secret))
			}
		})

		It("tries the handshake again before the next call", func() {
			c := legacy(host)
			call(c, "", "tools/list", nil)
			r := call(c, "", "tools/list", nil)
			Expect(r.Exchanges).To(HaveLen(2))
			Expect(r.Last().RequestHeader["Mcp-Protocol-Version"]).To(Equal([]string{"2025-06-18"}))
		})
	})

	DescribeTable("finds no JSON-RPC response where there is none",
		func(contentType, body string) {
			host := newHost(func(w http.ResponseWriter, r *http.Request) {
				if message(r).Method != "tools/call" {
					stateless(w, r)
					return
				}
				if contentType != "" {
					w.Header().Set("Content-Type", contentType)
				}
				w.WriteHeader(http.StatusOK)
				fmt.Fprint(w, body)
			})
			c := legacy(host)
			r := call(c, "", "tools/call", map[string]any{"name": "afs_list"})
			Expect(r.Status).To(Equal(http.StatusOK))
			Expect(string(r.Body)).To(Equal(body))
			Expect(r.Message).To(BeNil())
			_, err := r.ToolResult()
			Expect(err).To(MatchError(ContainSubstring("no JSON-RPC response")))
			_, err = r.ToolNames()
			Expect(err).To(HaveOccurred())
		},
		Entry("an HTML page", "text/html; charset=utf-8", "<html><body>Welcome</body></html>"),
		Entry("an empty JSON body", "application/json", ""),
		Entry("malformed JSON", "application/json", `{"jsonrpc":"2.0","id":`),
		Entry("a JSON array of numbers", "application/json", `[1,2,3]`),
		Entry("a response to another request", "application/json", `{"jsonrpc":"2.0","id":424242,"result":{"content":[]}}`),
		Entry("a response whose id is a string", "application/json", `{"jsonrpc":"2.0","id":"2","result":{"content":[]}}`),
		Entry("JSON labelled as plain text", "text/plain", `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`),
		Entry("an event stream that ends without the response", "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n"),
		Entry("an event stream cut inside the response", "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}"),
	)

	Describe("decoding results", func() {
		answer := func(body string) *mcpclient.Reply {
			GinkgoHelper()
			host := newHost(func(w http.ResponseWriter, r *http.Request) {
				m := message(r)
				if m.Method != "tools/call" {
					stateless(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, body, m.ID)
			})
			return call(legacy(host), "", "tools/call", map[string]any{"name": "afs_stat"})
		}

		It("reads structuredContent and joins text contents", func() {
			tr, err := answer(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"structuredContent":{"capabilities":["list","read"]},"isError":false}}`).ToolResult()
			Expect(err).NotTo(HaveOccurred())
			Expect(tr.Text).To(Equal("a\nb"))
			Expect(tr.IsError).To(BeFalse())
			Expect(tr.Structured).To(MatchJSON(`{"capabilities":["list","read"]}`))
		})

		It("refuses a result that is not a CallToolResult", func() {
			_, err := answer(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`).ToolResult()
			Expect(err).To(MatchError(ContainSubstring("not a CallToolResult")))
			_, err = answer(`{"jsonrpc":"2.0","id":%s,"result":{"content":[],"isError":"yes"}}`).ToolResult()
			Expect(err).To(MatchError(ContainSubstring("not a CallToolResult")))
			_, err = answer(`{"jsonrpc":"2.0","id":%s,"result":null}`).ToolResult()
			Expect(err).To(MatchError(ContainSubstring("no result")))
		})

		It("reports a JSON-RPC error, with a null id when the host could not read the id", func() {
			r := answer(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"Unknown tool","data":{"name":"x"}}}`)
			Expect(r.Message.Error.Code).To(Equal(-32602))
			Expect(r.Message.Error.Data).To(MatchJSON(`{"name":"x"}`))
			_, err := r.ToolResult()
			Expect(err).To(MatchError(ContainSubstring("-32602")))

			r = answer(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}%.0s`)
			Expect(r.Message).NotTo(BeNil())
			Expect(r.Message.Error.Message).To(Equal("Parse error"))
		})

		It("refuses a tools/list result without tool names", func() {
			_, err := answer(`{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}`).ToolNames()
			Expect(err).To(MatchError(ContainSubstring("no tools array")))
			_, err = answer(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"title":"x"}]}}`).ToolNames()
			Expect(err).To(MatchError(ContainSubstring("no name")))
		})
	})

	It("takes the first response of a batch sent raw", func() {
		host := newHost(func(w http.ResponseWriter, r *http.Request) {
			if message(r).Method != "" {
				stateless(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `[{"jsonrpc":"2.0","id":"b1","result":{"tools":[]}},{"jsonrpc":"2.0","id":"b2","result":{"tools":[]}}]`)
		})
		c := legacy(host)
		r, err := c.Send(context.Background(), "", "application/json", []byte(`[{"jsonrpc":"2.0","id":"b1","method":"tools/list"},{"jsonrpc":"2.0","id":"b2","method":"tools/list"}]`))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Message).NotTo(BeNil())
		Expect(string(r.Message.ID)).To(Equal(`"b1"`))
	})

	It("sends no Content-Type when Send is given none", func() {
		host := newHost(stateless)
		c := legacy(host)
		_, err := c.Send(context.Background(), "", "", []byte(`{"jsonrpc":"2.0","id":"x","method":"ping"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(host.requests()[2].header.Values("Content-Type")).To(BeEmpty())
	})

	Context("when no response can be had", func() {
		It("returns an error when the host is unreachable", func() {
			host := newHost(stateless)
			endpoint := host.endpoint()
			host.Close()
			r, err := mcpclient.New(endpoint, nil).Call(context.Background(), "", "tools/list", nil)
			Expect(err).To(HaveOccurred())
			Expect(r).To(BeNil())
		})

		It("returns an error when the context ends before the host answers", func() {
			host := newHost(func(w http.ResponseWriter, r *http.Request) {
				if message(r).Method == "tools/call" {
					<-r.Context().Done()
					return
				}
				stateless(w, r)
			})
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			r, err := legacy(host).Call(ctx, "", "tools/call", map[string]any{"name": "afs_list"})
			Expect(err).To(MatchError(context.DeadlineExceeded))
			Expect(r).To(BeNil())
		})

		It("returns what came when the context ends inside an event stream", func() {
			host := newHost(func(w http.ResponseWriter, r *http.Request) {
				if message(r).Method != "tools/call" {
					stateless(w, r)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, ": waiting\n\n")
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			})
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			start := time.Now()
			r, err := legacy(host).Call(ctx, "", "tools/call", map[string]any{"name": "afs_list"})
			Expect(err).NotTo(HaveOccurred())
			Expect(time.Since(start)).To(BeNumerically("<", 5*time.Second))
			Expect(r.Status).To(Equal(http.StatusOK))
			Expect(r.Message).To(BeNil())
			Expect(string(r.Body)).To(Equal(": waiting\n\n"))
		})
	})

	It("has no last exchange when it made none", func() {
		Expect((&mcpclient.Reply{}).Last()).To(Equal(wire.Exchange{}))
	})
})

// legacy is a client pinned to 2025-06-18, the revision whose handshake and
// sessions the specs above are about.
func legacy(h *fakeHost) *mcpclient.Client {
	return mcpclient.New(h.endpoint(), h.Client()).Pin("2025-06-18")
}
