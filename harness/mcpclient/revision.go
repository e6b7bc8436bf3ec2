package mcpclient

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/wire"
)

// The MCP revisions the client speaks, newest first. 2026-07-28 is stateless
// (per-request _meta and headers, server/discover); the others open a
// session with initialize.
const (
	// Modern is the stateless revision (MCP 2026-07-28, changelog "Major
	// changes" 2 and 3).
	Modern = "2026-07-28"
	// Legacy is the version offered in initialize when nothing better is
	// known: the newest revision that still has the handshake.
	Legacy = "2025-11-25"
)

// Revisions lists every revision the client speaks, newest first.
var Revisions = []string{Modern, Legacy, "2025-06-18", "2025-03-26"}

// Header names of the 2026-07-28 Streamable HTTP transport ("Request
// Metadata", "Standard Request Headers").
const (
	MethodHeader = "Mcp-Method"
	NameHeader   = "Mcp-Name"
)

// The error codes MCP 2026-07-28 reserves for the base protocol (Basic,
// "Error Codes").
const (
	CodeHeaderMismatch                  = -32020
	CodeMissingRequiredClientCapability = -32021
	CodeUnsupportedProtocolVersion      = -32022
	codeMethodNotFound                  = -32601
)

// The _meta keys every 2026-07-28 request carries (Basic, "_meta",
// per-request protocol fields).
const (
	metaVersion      = "io.modelcontextprotocol/protocolVersion"
	metaCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo   = "io.modelcontextprotocol/clientInfo"
)

// era is what the client has learned of the server's revision.
type era int

const (
	unknown era = iota
	modern
	legacy
)

// verdict is what one reply to a modern request says of the revision.
type verdict int

const (
	// answered: keep the reply; it says nothing more or confirms modern.
	answered verdict = iota
	// fallBack: the server speaks an earlier revision; send the request
	// again the legacy way.
	fallBack
)

// Pin makes the client speak one revision and never negotiate: the
// profile's mcp_revision. "" keeps negotiating. It returns c.
func (c *Client) Pin(revision string) *Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pinned = revision
	return c
}

// Revision is the revision the server took: the pinned one, 2026-07-28 once
// the server answered a stateless request, the version it chose in
// initialize once it turned out to speak an earlier one; "" until a reply
// told.
func (c *Client) Revision() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.pinned != "":
		return c.pinned
	case c.era == modern:
		return Modern
	case c.era == legacy:
		if c.chosen != "" {
			return c.chosen
		}
		return c.offer
	}
	return ""
}

// speaksModern reports whether the next request goes out the stateless way:
// pinned to 2026-07-28, or not yet shown to be an earlier server.
func (c *Client) speaksModern() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pinned != "" {
		return c.pinned >= Modern
	}
	return c.era != legacy
}

// offered is the version an initialize offers.
func (c *Client) offered() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.pinned != "" && c.pinned < Modern:
		return c.pinned
	case c.offer != "":
		return c.offer
	}
	return Legacy
}

// learn reads what a reply to a stateless request says of the server's
// revision, as the transport's Backward Compatibility section tells a client
// that speaks both eras: a recognised modern JSON-RPC error means a modern
// server (retry with a version it lists, never fall back); a 400, 404 or 405
// whose body is no such error means an earlier server, so fall back to
// initialize. A 401 or 403 says nothing: authorization comes before the
// protocol on many servers.
func (c *Client) learn(r *Reply) verdict {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pinned != "" {
		return answered
	}
	var code int
	if r.Message != nil && r.Message.Error != nil {
		code = r.Message.Error.Code
	}
	switch {
	case code == CodeUnsupportedProtocolVersion:
		// The server lists what it speaks (UnsupportedProtocolVersionError,
		// data.supported); take the newest the client speaks too.
		for _, v := range Revisions {
			if slices.Contains(supported(r.Message.Error.Data), v) {
				if v >= Modern {
					c.era = modern
					return answered
				}
				c.era, c.offer = legacy, v
				return fallBack
			}
		}
		c.era = modern
		return answered
	case code == CodeHeaderMismatch || code == CodeMissingRequiredClientCapability,
		r.Status == http.StatusNotFound && code == codeMethodNotFound,
		r.Status/100 == 2 && r.Message != nil:
		c.era = modern
		return answered
	case r.Status == http.StatusBadRequest || r.Status == http.StatusNotFound || r.Status == http.StatusMethodNotAllowed:
		c.era = legacy
		return fallBack
	}
	return answered
}

// supported reads data.supported of an UnsupportedProtocolVersionError.
func supported(data json.RawMessage) []string {
	var d struct {
		Supported []string `json:"supported"`
	}
	_ = json.Unmarshal(data, &d)
	return d.Supported
}

// chose records the version an earlier-revision server chose in initialize.
func (c *Client) chose(version string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.chosen == "" && version != "" {
		c.chosen = version
	}
}

// modernRequest builds a stateless request: params with the per-request
// _meta added (what the caller put in _meta stays), and the headers that
// mirror the body (transport, "Standard Request Headers"). Params that are
// not a JSON object are sent as they are.
func (c *Client) modernRequest(method string, params any) ([]byte, string, http.Header, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, "", nil, fmt.Errorf("encode %s: %w", method, err)
	}
	var members map[string]json.RawMessage
	if params == nil || string(raw) == "null" {
		members = map[string]json.RawMessage{}
	} else if json.Unmarshal(raw, &members) != nil {
		members = nil
	}
	var out any = params
	if members != nil {
		meta := map[string]any{}
		if m, ok := members["_meta"]; ok {
			_ = json.Unmarshal(m, &meta)
		}
		for k, v := range map[string]any{metaVersion: Modern, metaCapabilities: map[string]any{}, metaClientInfo: clientInfo} {
			if _, ok := meta[k]; !ok {
				meta[k] = v
			}
		}
		encoded, err := json.Marshal(meta)
		if err != nil {
			return nil, "", nil, fmt.Errorf("encode %s: %w", method, err)
		}
		members["_meta"] = encoded
		out = members
	}
	id := c.nextID.Add(1)
	body, err := encode(&id, method, out)
	if err != nil {
		return nil, "", nil, err
	}
	return body, fmt.Sprint(id), mirrored(body), nil
}

// mirrored returns the 2026-07-28 headers for a body: the version always;
// Mcp-Method and, for the methods that name something, Mcp-Name, when the
// body is one JSON-RPC message whose members can be read.
// withMeta gives a raw body's params the _meta a 2026-07-28 request carries
// (transport, "Protocol Version Header": the header must match it), as text,
// so that the rest of the body, duplicate members and all, stays as the
// caller wrote it. A body that is not one request with a params object, or
// whose params hold _meta already, is left as it is.
func withMeta(body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return body
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return body
		}
		if key != "params" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return body
			}
			continue
		}
		at := int(dec.InputOffset())
		for at < len(body) && strings.ContainsRune(" \t\r\n:", rune(body[at])) {
			at++
		}
		var params map[string]json.RawMessage
		if at >= len(body) || body[at] != '{' || dec.Decode(&params) != nil {
			return body
		}
		if _, ok := params["_meta"]; ok {
			return body
		}
		meta, err := json.Marshal(map[string]any{metaVersion: Modern, metaCapabilities: map[string]any{}, metaClientInfo: clientInfo})
		if err != nil {
			return body
		}
		insert := append([]byte(`"_meta":`), meta...)
		if len(params) > 0 {
			insert = append(insert, ',')
		}
		out := append([]byte{}, body[:at+1]...)
		out = append(out, insert...)
		return append(out, body[at+1:]...)
	}
	return body
}

func mirrored(body []byte) http.Header {
	h := http.Header{}
	h.Set(VersionHeader, Modern)
	var m struct {
		Method *string `json:"method"`
		Params struct {
			Name *string `json:"name"`
			URI  *string `json:"uri"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method == nil {
		return h
	}
	h.Set(MethodHeader, *m.Method)
	switch *m.Method {
	case "tools/call", "prompts/get":
		if m.Params.Name != nil {
			h.Set(NameHeader, HeaderValue(*m.Params.Name))
		}
	case "resources/read":
		if m.Params.URI != nil {
			h.Set(NameHeader, HeaderValue(*m.Params.URI))
		}
	}
	return h
}

// HeaderValue encodes a value for Mcp-Name as the transport's "Value
// Encoding" says: as it is when it is plain visible ASCII (spaces inside
// allowed), else, or when it looks like the sentinel itself, Base64 of its
// UTF-8 between "=?base64?" and "?=".
func HeaderValue(s string) string {
	plain := s == strings.TrimSpace(s) && !(strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?="))
	for _, r := range s {
		if r != ' ' && r != '\t' && (r < 0x21 || r > 0x7e) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

// ProtocolRefusal says why the server refused the request for the base
// protocol rather than for anything a scenario judges, or "" when it did not:
// a 400 with HeaderMismatch, MissingRequiredClientCapability or
// UnsupportedProtocolVersion (MCP 2026-07-28), or a 400 naming the protocol
// version header, as earlier revisions answer an unsupported version
// (2025-06-18, Transports, "Protocol Version Header").
func (r *Reply) ProtocolRefusal() string {
	if r.Status != http.StatusBadRequest {
		return ""
	}
	if r.Message != nil && r.Message.Error != nil {
		switch code := r.Message.Error.Code; code {
		case CodeHeaderMismatch, CodeMissingRequiredClientCapability, CodeUnsupportedProtocolVersion:
			return fmt.Sprintf("HTTP 400 with JSON-RPC error %d: %s", code, r.Message.Error.Message)
		}
	}
	if lower := strings.ToLower(string(r.Body)); strings.Contains(lower, "protocol version") || strings.Contains(lower, "mcp-protocol-version") {
		text := strings.TrimSpace(string(r.Body))
		if head, cut := wire.Cut(text, 200); cut {
			text = head + "..."
		}
		return "HTTP 400 naming the protocol version: " + text
	}
	return ""
}
