// Package fakeprotocol is what the harness's fake servers share of the MCP
// revisions they speak: the checks a server that speaks only 2026-07-28
// makes of every request (transport, "Request Metadata" and "Server
// Validation"; Basic, "_meta"), and the refusal a server of an earlier
// revision gives a version it does not know. The fakes prove the harness
// works with either; they are written from the specification, not from the
// harness.
package fakeprotocol

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
)

// Modern is the stateless revision.
const Modern = "2026-07-28"

// Older lists the earlier revisions an older-only fake accepts.
var Older = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// Refusal is a 400 with a JSON-RPC error that a fake answers instead of the
// request.
type Refusal struct {
	Code    int
	Message string
	Data    any
}

// Body is the JSON-RPC error response carrying the refusal.
func (f *Refusal) Body(id json.RawMessage) map[string]any {
	if id == nil {
		id = json.RawMessage("null")
	}
	e := map[string]any{"code": f.Code, "message": f.Message}
	if f.Data != nil {
		e["data"] = f.Data
	}
	return map[string]any{"jsonrpc": "2.0", "id": id, "error": e}
}

// CheckModern is what a server that speaks only 2026-07-28 checks before it
// serves a request: the version header (a missing one is a missing required
// header, an unknown one UnsupportedProtocolVersion with the supported
// list), Mcp-Method and Mcp-Name against the body (the Base64 sentinel
// decoded first), and the per-request _meta. A notification carries no
// required headers in this revision. nil means the request may go on.
func CheckModern(r *http.Request, method string, id, params json.RawMessage) *Refusal {
	if id == nil {
		return nil
	}
	version := r.Header.Get("MCP-Protocol-Version")
	switch {
	case version == "":
		return &Refusal{Code: -32020, Message: "Header mismatch: MCP-Protocol-Version is required"}
	case version != Modern:
		return &Refusal{Code: -32022, Message: "Unsupported protocol version",
			Data: map[string]any{"supported": []string{Modern}, "requested": version}}
	case r.Header.Get("Mcp-Method") != method:
		return &Refusal{Code: -32020, Message: "Header mismatch: Mcp-Method does not match the body's method"}
	}
	var p struct {
		Name *string                    `json:"name"`
		URI  *string                    `json:"uri"`
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	name := p.Name
	if method == "resources/read" {
		name = p.URI
	}
	switch method {
	case "tools/call", "resources/read", "prompts/get":
		if got, ok := decode(r.Header.Get("Mcp-Name")); !ok || name == nil || got != *name {
			return &Refusal{Code: -32020, Message: "Header mismatch: Mcp-Name does not match the body"}
		}
	}
	var v string
	if json.Unmarshal(p.Meta["io.modelcontextprotocol/protocolVersion"], &v) != nil || v != version {
		return &Refusal{Code: -32020, Message: "Header mismatch: MCP-Protocol-Version does not match _meta"}
	}
	if _, ok := p.Meta["io.modelcontextprotocol/clientCapabilities"]; !ok {
		return &Refusal{Code: -32602, Message: "Invalid params: _meta lacks io.modelcontextprotocol/clientCapabilities"}
	}
	return nil
}

// decode reads a header value that may use the Base64 sentinel.
func decode(v string) (string, bool) {
	if v == "" {
		return "", false
	}
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok || !strings.HasSuffix(inner, "?=") {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(inner, "?="))
	return string(b), err == nil
}

// CheckOlder is what a server of an earlier revision answers a version
// header it does not know: 400 Bad Request (2025-06-18, Transports,
// "Protocol Version Header"), with an error of its own.
func CheckOlder(r *http.Request) *Refusal {
	v := r.Header.Get("MCP-Protocol-Version")
	for _, ok := range Older {
		if v == ok {
			return nil
		}
	}
	if v == "" {
		return nil
	}
	return &Refusal{Code: -32600, Message: "Bad Request: unsupported protocol version " + v}
}

// Complete marks result finished, as a 2026-07-28 result must be marked:
// "The `result` MUST include a `resultType` field to indicate the type of
// the result", "complete" for one that "completed successfully" (Basic,
// "ResultType"). Results of an earlier revision, whose version header
// r does not carry, are left as they are: those revisions have no such
// field. result is returned, marked in place.
func Complete(r *http.Request, result map[string]any) map[string]any {
	if result != nil && r.Header.Get("MCP-Protocol-Version") == Modern {
		result["resultType"] = "complete"
	}
	return result
}

// CompleteList is Complete for the result of a list (tools/list,
// prompts/list, resources/list), which 2026-07-28 also requires to carry
// ttlMs and cacheScope ("Require ttlMs and cacheScope fields on results
// returned by tools/list, prompts/list, resources/list, resources/read,
// and resources/templates/list", changelog): no time to keep it, and
// private, since what a caller may list depends on its credential.
func CompleteList(r *http.Request, result map[string]any) map[string]any {
	if result != nil && r.Header.Get("MCP-Protocol-Version") == Modern {
		result["ttlMs"] = 0
		result["cacheScope"] = "private"
	}
	return Complete(r, result)
}

// Discover is a server/discover result for a server that speaks
// 2026-07-28 and the older revisions it names (none for one that speaks
// only 2026-07-28), marked complete as every result of that revision is.
func Discover(name string, older ...string) map[string]any {
	return map[string]any{
		"resultType":        "complete",
		"supportedVersions": append([]string{Modern}, older...),
		"capabilities":      map[string]any{"tools": map[string]any{}},
		"_meta":             map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": name, "version": "0"}},
	}
}
