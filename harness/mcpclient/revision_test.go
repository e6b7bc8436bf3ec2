package mcpclient_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/internal/buildinfo"
)

// modernOnly answers like a server that speaks only MCP 2026-07-28 and checks
// the mirrored headers before anything else (transport, "Server Validation").
func modernOnly(w http.ResponseWriter, r *http.Request) {
	m := message(r)
	var p struct {
		Name string                     `json:"name"`
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	rpcErr := func(code int, msg string, data any) {
		writeJSON(w, http.StatusBadRequest, map[string]any{"jsonrpc": "2.0", "id": m.ID,
			"error": map[string]any{"code": code, "message": msg, "data": data}})
	}
	version := r.Header.Get("MCP-Protocol-Version")
	switch {
	case version != "2026-07-28":
		rpcErr(-32022, "Unsupported protocol version", map[string]any{"supported": []string{"2026-07-28"}, "requested": version})
		return
	case r.Header.Get("Mcp-Method") != m.Method:
		rpcErr(-32020, "Header mismatch: Mcp-Method", nil)
		return
	case string(p.Meta["io.modelcontextprotocol/protocolVersion"]) != `"2026-07-28"` || p.Meta["io.modelcontextprotocol/clientCapabilities"] == nil:
		rpcErr(-32602, "missing _meta", nil)
		return
	case m.Method == "tools/call" && decodeName(r.Header.Get("Mcp-Name")) != p.Name:
		rpcErr(-32020, "Header mismatch: Mcp-Name", nil)
		return
	}
	switch m.Method {
	case "server/discover":
		writeJSON(w, http.StatusOK, result(m, map[string]any{"supportedVersions": []string{"2026-07-28"}, "capabilities": map[string]any{}}))
	case "tools/list", "tools/call":
		negotiating("2026-07-28")(w, r)
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
	}
}

func decodeName(v string) string {
	if s, ok := strings.CutPrefix(v, "=?base64?"); ok && strings.HasSuffix(s, "?=") {
		b, _ := base64.StdEncoding.DecodeString(strings.TrimSuffix(s, "?="))
		return string(b)
	}
	return v
}

// olderOnly answers like a server of an earlier revision that checks the
// version header: an unknown version is a plain 400 (2025-06-18, "Protocol
// Version Header"), with a JSON-RPC error of its own choosing.
func olderOnly(w http.ResponseWriter, r *http.Request) {
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && v != "2025-06-18" && v != "2025-11-25" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"jsonrpc": "2.0", "id": nil,
			"error": map[string]any{"code": -32000, "message": "Bad Request: Unsupported protocol version"}})
		return
	}
	negotiating("2025-06-18")(w, r)
}

var _ = Describe("Revision negotiation", func() {
	It("speaks 2026-07-28 to a server that speaks only it: _meta, mirrored headers, no handshake", func() {
		host := newHost(modernOnly)
		c := mcpclient.New(host.endpoint(), host.Client())
		r := call(c, "", "tools/call", map[string]any{"name": "afs_read", "arguments": map[string]any{"path": "/x"}})
		Expect(r.Status).To(Equal(http.StatusOK), string(r.Body))
		Expect(host.methods()).To(Equal([]string{"tools/call"}))
		Expect(c.Revision()).To(Equal("2026-07-28"))
		h := host.requests()[0].header
		Expect(h.Get("Mcp-Method")).To(Equal("tools/call"))
		Expect(h.Get("Mcp-Name")).To(Equal("afs_read"))
		Expect(h.Values("Mcp-Session-Id")).To(BeEmpty())
		Expect(string(host.requests()[0].body)).To(ContainSubstring(`"io.modelcontextprotocol/clientInfo":{"name":"conform"`))
	})

	It("names conform's version in clientInfo, never the go command's placeholder (devel) (issue 24 item 10)", func() {
		host := newHost(modernOnly)
		c := mcpclient.New(host.endpoint(), host.Client())
		call(c, "", "tools/list", map[string]any{})
		var sent struct {
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		Expect(json.Unmarshal(host.requests()[0].body, &sent)).To(Succeed())
		var info struct {
			Version string `json:"version"`
		}
		Expect(json.Unmarshal(sent.Params.Meta["io.modelcontextprotocol/clientInfo"], &info)).To(Succeed())
		Expect(info.Version).To(Equal(buildinfo.Number()))
		Expect(info.Version).NotTo(BeEmpty())
		Expect(info.Version).NotTo(Equal("(devel)"))
	})

	It("keeps what the caller put in _meta and adds only what is missing", func() {
		host := newHost(modernOnly)
		c := mcpclient.New(host.endpoint(), host.Client())
		call(c, "", "tools/list", map[string]any{"_meta": map[string]any{"progressToken": 7}})
		var p struct {
			Meta map[string]any `json:"_meta"`
		}
		Expect(json.Unmarshal(host.requests()[0].msg.Params, &p)).To(Succeed())
		Expect(p.Meta).To(HaveKeyWithValue("progressToken", BeNumerically("==", 7)))
		Expect(p.Meta).To(HaveKeyWithValue("io.modelcontextprotocol/protocolVersion", "2026-07-28"))
	})

	It("falls back to initialize when an earlier server answers a plain 400, and remembers it", func() {
		host := newHost(olderOnly)
		c := mcpclient.New(host.endpoint(), host.Client())
		r := call(c, "", "tools/list", nil)
		Expect(r.Status).To(Equal(http.StatusOK))
		Expect(host.methods()).To(Equal([]string{"tools/list", "initialize", "notifications/initialized", "tools/list"}))
		Expect(r.Exchanges).To(HaveLen(4), "the modern attempt is kept in the record")
		Expect(c.Revision()).To(Equal("2025-06-18"), "the version the server chose in initialize")
		call(c, "Bearer x", "tools/list", nil)
		Expect(host.methods()[4]).To(Equal("initialize"), "no second modern attempt")
	})

	It("offers the newest earlier version the server lists in an UnsupportedProtocolVersion error", func() {
		host := newHost(func(w http.ResponseWriter, r *http.Request) {
			m := message(r)
			if r.Header.Get("MCP-Protocol-Version") == "2026-07-28" {
				writeJSON(w, http.StatusBadRequest, map[string]any{"jsonrpc": "2.0", "id": m.ID,
					"error": map[string]any{"code": -32022, "message": "unsupported", "data": map[string]any{"supported": []string{"2025-03-26", "2025-06-18"}}}})
				return
			}
			negotiating("2025-06-18")(w, r)
		})
		c := mcpclient.New(host.endpoint(), host.Client())
		call(c, "", "tools/list", nil)
		var init struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		Expect(json.Unmarshal(host.requests()[1].msg.Params, &init)).To(Succeed())
		Expect(init.ProtocolVersion).To(Equal("2025-06-18"))
	})

	It("learns nothing from a 401, and learns from the first reply that tells", func() {
		host := newHost(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") == "" {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="x"`)
				writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "Unauthorized"})
				return
			}
			modernOnly(w, r)
		})
		c := mcpclient.New(host.endpoint(), host.Client())
		Expect(call(c, "", "tools/list", nil).Status).To(Equal(http.StatusUnauthorized))
		Expect(c.Revision()).To(BeEmpty())
		Expect(call(c, "Bearer t", "tools/list", nil).Status).To(Equal(http.StatusOK))
		Expect(c.Revision()).To(Equal("2026-07-28"))
	})

	It("never falls back when pinned to 2026-07-28, and names the protocol refusal", func() {
		host := newHost(olderOnly)
		c := mcpclient.New(host.endpoint(), host.Client()).Pin("2026-07-28")
		r := call(c, "", "tools/list", nil)
		Expect(r.Status).To(Equal(http.StatusBadRequest))
		Expect(host.methods()).To(Equal([]string{"tools/list"}))
		Expect(r.ProtocolRefusal()).To(ContainSubstring("protocol version"))
	})

	It("mirrors what it can of a raw body once the server is known to speak 2026-07-28, and gives its params the _meta", func() {
		host := newHost(modernOnly)
		c := mcpclient.New(host.endpoint(), host.Client())
		r, err := c.Send(GinkgoT().Context(), "", "application/json", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(host.methods()).To(Equal([]string{"tools/list", "tools/list"}), "a call that can tell the revision goes first")
		Expect(r.Status).To(Equal(http.StatusOK))
		Expect(r.Last().RequestHeader).To(HaveKeyWithValue("Mcp-Method", []string{"tools/list"}))

		r, err = c.Send(GinkgoT().Context(), "", "application/json", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Status).To(Equal(http.StatusBadRequest), "a body without params is sent as it is, so carries no _meta")
	})

	It("probes with server/discover, or with initialize an earlier server, carrying the extra headers", func() {
		modernHost := newHost(modernOnly)
		r, err := mcpclient.New(modernHost.endpoint(), modernHost.Client()).Probe(GinkgoT().Context(), "", http.Header{"Origin": {"http://evil.invalid"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Status).To(Equal(http.StatusOK))
		Expect(modernHost.methods()).To(Equal([]string{"server/discover"}))
		Expect(modernHost.requests()[0].header.Get("Origin")).To(Equal("http://evil.invalid"))

		older := newHost(olderOnly)
		r, err = mcpclient.New(older.endpoint(), older.Client()).Probe(GinkgoT().Context(), "", http.Header{"Origin": {"http://evil.invalid"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Status).To(Equal(http.StatusOK))
		Expect(older.methods()).To(Equal([]string{"server/discover", "initialize"}))
		Expect(older.requests()[1].header.Get("Origin")).To(Equal("http://evil.invalid"))
	})

	DescribeTable("encodes Mcp-Name as the transport's Value Encoding says",
		func(name, header string) { Expect(mcpclient.HeaderValue(name)).To(Equal(header)) },
		Entry("plain ASCII", "afs_read", "afs_read"),
		Entry("inner space", "get weather", "get weather"),
		Entry("non-ASCII", "Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
		Entry("padded", " padded ", "=?base64?IHBhZGRlZCA=?="),
		Entry("newline", "line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
		Entry("looks like the sentinel", "=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
	)
})
