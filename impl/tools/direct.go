package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/conform-mcp/conform/impl/request"
)

// A direct call is a single JSON-RPC call that the gate has already parsed,
// handed to the SDK's server as a decoded message over an in-memory
// connection instead of through the SDK's streamable HTTP handler. The
// server, its session and its method handling are the SDK's, as on the
// other path; only the HTTP layer differs, and only for the calls it
// answers exactly as the SDK's handler would (direct_test.go compares the
// two byte for byte). The handler decodes the body about nine times, each
// time with a fresh 32 KiB read buffer (docs/sdk-decode-buffer.md): most of
// a request's bytes and, through the garbage collector, half its CPU.
//
// A direct tools/call of one of the server's own tools goes further: when
// the SDK's server would do nothing for it but decode its params (twice
// more, 64 KiB), run the tool's handler and encode the result, the tool
// runs here and its result is encoded as the SDK encodes it (direct_test.go
// holds this path to the same bytes too).

// directMethods are the methods served directly: the ones the reference
// host's server handles, so the SDK's handler would not refuse them at the
// HTTP level. paramsRequired are those its handler refuses with HTTP 400
// when "params" is missing.
var (
	directMethods  = []string{"initialize", "ping", "tools/list", "tools/call", "resources/list", "prompts/list"}
	paramsRequired = []string{"initialize", "tools/call"}
)

// directVersions are the MCP-Protocol-Version header values served
// directly: the versions before 2026-07-28, whose requests carry no
// per-request protocol metadata and no Mcp-Method or Mcp-Name headers to
// check, and which the SDK supports.
var directVersions = slices.DeleteFunc(mcp.SupportedProtocolVersions(), func(v string) bool {
	return v >= "2026-07-28"
})

// defaultVersion is the version the SDK's handler assumes when a request
// carries no MCP-Protocol-Version header (MCP 2025-06-18, Transports,
// "Protocol Version Header": assume 2025-03-26).
const defaultVersion = "2025-03-26"

// directCall returns the call to serve directly and its protocol version
// header, or ok false when the request must go to the SDK's handler: when
// the gate did not parse it, when it is a batch, a notification or a
// response, or when anything about it needs a check only that handler
// makes.
func directCall(r *http.Request) (call *jsonrpc.Request, version string, ok bool) {
	b := request.FromContext(r.Context())
	if b == nil || b.Batch || len(b.Messages) != 1 {
		return nil, "", false
	}
	m := b.Messages[0]
	if !m.Object || string(m.Version) != `"2.0"` || !m.HasMethod || !slices.Contains(directMethods, m.Method) {
		return nil, "", false
	}
	if m.Params == nil && slices.Contains(paramsRequired, m.Method) {
		return nil, "", false
	}
	// Per-request protocol metadata (_meta) is checked against headers by
	// the SDK's handler; leave any params that might hold it to that handler.
	if bytes.Contains(m.Params, []byte(`_meta`)) {
		return nil, "", false
	}
	id, ok := plainID(m.ID)
	if !ok {
		return nil, "", false
	}
	version = r.Header.Get("Mcp-Protocol-Version")
	if version != "" && !slices.Contains(directVersions, version) {
		return nil, "", false
	}
	if len(r.Header.Values("Last-Event-ID")) > 0 || !acceptsJSON(r.Header.Values("Accept")) {
		return nil, "", false
	}
	return &jsonrpc.Request{ID: id, Method: m.Method, Params: m.Params}, version, true
}

// plainID reads an id that every JSON decoder reads the same way: an
// integer of at most 15 digits (exact as a float64, the SDK's reading) or a
// string of printable ASCII without escapes. A null or absent id makes a
// notification, which is not served directly.
func plainID(raw []byte) (jsonrpc.ID, bool) {
	switch {
	case len(raw) > 0 && raw[0] == '"':
		s, ok := plainString(raw)
		if !ok {
			return jsonrpc.ID{}, false
		}
		id, err := jsonrpc.MakeID(s)
		return id, err == nil
	case len(raw) > 0:
		digits := strings.TrimPrefix(string(raw), "-")
		if len(digits) == 0 || len(digits) > 15 || strings.Trim(digits, "0123456789") != "" {
			return jsonrpc.ID{}, false
		}
		var n float64
		for _, c := range digits {
			n = n*10 + float64(c-'0')
		}
		if len(digits) != len(raw) {
			n = -n
		}
		id, err := jsonrpc.MakeID(n)
		return id, err == nil
	}
	return jsonrpc.ID{}, false
}

// plainString reads a JSON string of printable ASCII without escapes, which
// every JSON decoder reads as its bytes and every encoder writes back as
// they are.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	s := raw[1 : len(raw)-1]
	for _, c := range s {
		if c < 0x20 || c > 0x7e || c == '\\' || c == '"' {
			return "", false
		}
	}
	return string(s), true
}

// directTool returns the tool a direct tools/call names and the call's
// arguments, when the SDK's server would do nothing for the call but run
// that tool's handler: params of "name" and "arguments" alone (no _meta,
// none of the multi-round-trip members inputResponses and requestState),
// the name a plain string naming one of the server's tools. The SDK's
// server answers any other name with an error of its own, so such a call
// is left to it.
func (s *Server) directTool(r *http.Request, call *jsonrpc.Request) (*tool, json.RawMessage, bool) {
	if call.Method != "tools/call" {
		return nil, nil, false
	}
	params := request.FromContext(r.Context()).Messages[0].CallParams
	for k := range params {
		if k != "name" && k != "arguments" {
			return nil, nil, false
		}
	}
	name, ok := plainString(params["name"])
	if !ok {
		return nil, nil, false
	}
	i := slices.IndexFunc(s.tools, func(t tool) bool { return t.name == name })
	if i < 0 {
		return nil, nil, false
	}
	return &s.tools[i], params["arguments"], true
}

// serveTool answers a call directTool found with its tool's result,
// encoded as the SDK's server encodes it: the result's own MarshalJSON,
// compact already, as the JSON-RPC result.
func serveTool(w http.ResponseWriter, r *http.Request, id jsonrpc.ID, t *tool, args json.RawMessage) {
	res := t.call(r.Context(), args)
	h := w.Header()
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Content-Type", "application/json")
	// A result that cannot be encoded leaves the reply empty: the SDK's
	// connection sends no response for it, and serveCall then writes none.
	if result, err := res.MarshalJSON(); err == nil {
		writeResult(w, id, result)
	}
}

// writeResult writes the JSON-RPC response of id with result, byte for byte
// as the SDK encodes one (jsonrpc.EncodeMessage), without encoding result
// once more: the SDK's encoder copies an encoded result through a
// compaction pass that changes nothing in JSON already compact, and a read's
// result may be megabytes. A string id is plain (plainID), so it is written
// as it is. The response writer buffers the three writes as it would one.
func writeResult(w http.ResponseWriter, id jsonrpc.ID, result []byte) {
	head := make([]byte, 0, 64)
	head = append(head, `{"jsonrpc":"2.0","id":`...)
	switch v := id.Raw().(type) {
	case int64:
		head = strconv.AppendInt(head, v, 10)
	case string:
		head = append(append(append(head, '"'), v...), '"')
	}
	head = append(head, `,"result":`...)
	for _, part := range [][]byte{head, result, []byte("}")} {
		if _, err := w.Write(part); err != nil {
			return
		}
	}
}

// serveCall answers call with the SDK's server, connected for this one call
// with the session state the SDK's stateless handler gives a request: a
// session already initialised at the request's protocol version, unless the
// call is initialize itself.
func (s *Server) serveCall(w http.ResponseWriter, r *http.Request, call *jsonrpc.Request, version string) {
	call.Extra = &mcp.RequestExtra{Header: r.Header}
	state := &mcp.ServerSessionState{InitializedParams: &mcp.InitializedParams{}, LogLevel: "info"}
	if call.Method != "initialize" {
		if version == "" {
			version = defaultVersion
		}
		state.InitializeParams = &mcp.InitializeParams{ProtocolVersion: version}
	}
	conn := newCallConn(call)
	session, err := s.mcp.Connect(r.Context(), conn, &mcp.ServerSessionOptions{State: state})
	if err != nil {
		http.Error(w, "failed connection", http.StatusInternalServerError)
		return
	}
	defer session.Close()

	h := w.Header()
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Content-Type", "application/json")
	select {
	case <-conn.answered:
	case <-conn.closed:
	case <-r.Context().Done():
		return
	}
	// A session that ended without answering leaves the reply empty, as the
	// SDK's handler leaves it.
	resp := conn.reply()
	switch {
	case resp == nil:
	case resp.Error == nil && len(resp.Result) > 0:
		writeResult(w, resp.ID, resp.Result)
	default:
		if data, err := jsonrpc.EncodeMessage(resp); err == nil {
			_, _ = w.Write(data)
		}
	}
}

// callConn is the in-memory connection of one direct call: it reads the
// call once and then waits for the end of the session; it keeps the
// response to the call.
type callConn struct {
	call     *jsonrpc.Request
	incoming chan jsonrpc.Message
	answered chan struct{}
	closed   chan struct{}

	mu        sync.Mutex
	response  *jsonrpc.Response
	closeOnce sync.Once
}

func newCallConn(call *jsonrpc.Request) *callConn {
	c := &callConn{
		call:     call,
		incoming: make(chan jsonrpc.Message, 1),
		answered: make(chan struct{}),
		closed:   make(chan struct{}),
	}
	c.incoming <- call
	return c
}

// Connect makes callConn its own mcp.Transport: the connection exists
// before the server connects to it.
func (c *callConn) Connect(context.Context) (mcp.Connection, error) { return c, nil }

// Read yields the call, then blocks until the connection closes.
func (c *callConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.incoming:
		return msg, nil
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write keeps the response to the call. With JSON replies there is no
// stream for anything else: notifications are dropped, as the SDK's
// stateless handler drops them, and a request from the server fails, since
// no client could answer it.
func (c *callConn) Write(_ context.Context, msg jsonrpc.Message) error {
	switch msg := msg.(type) {
	case *jsonrpc.Response:
		if msg.ID != c.call.ID {
			return nil
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.response == nil {
			c.response = msg
			close(c.answered)
		}
	case *jsonrpc.Request:
		if msg.IsCall() {
			return errStatelessRequest
		}
	}
	return nil
}

func (c *callConn) reply() *jsonrpc.Response {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.response
}

// Close ends the session's reading; it may be called more than once.
func (c *callConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID is empty: the host is stateless (PRODUCT 6).
func (c *callConn) SessionID() string { return "" }

var errStatelessRequest = errors.New("a stateless server cannot send requests: no client could answer them")
