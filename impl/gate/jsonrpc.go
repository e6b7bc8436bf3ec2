package gate

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/conform-mcp/conform/impl/request"
)

// JSON-RPC 2.0 error codes (JSON-RPC 2.0 section 5.1).
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// message is what gate 1 needs of one JSON-RPC message, and the message as
// the handlers behind the gate receive it (package request).
type message struct {
	method      string
	hasMethod   bool // "method" is present and a string
	toolName    string
	hasToolName bool // tools/call with params.name a string
	wire        request.Message
}

// MaxBatch is the most messages a JSON-RPC batch may hold. Without a bound,
// a body of a million empty objects made the gate build a map for each
// before it could answer 401; the bound is checked while the body is
// scanned, for every caller alike, so it says nothing about any tool. MCP
// dropped batches in revision 2025-06-18, so real clients never come near it
// (PRODUCT.md section 6).
const MaxBatch = 64

type rpcError struct {
	code    int
	message string
}

// parseMessages reads a JSON-RPC message or batch, in one pass over a body
// json.Valid accepted. It refuses duplicate keys in the fields it reads: the
// SDK behind the gate decodes with another JSON library, and a key given
// twice could be read one way here and another way there, letting an allowed
// name through for a privileged one.
func parseMessages(body []byte) (msgs []message, batch bool, _ *rpcError) {
	if !json.Valid(body) {
		return nil, false, &rpcError{codeParseError, "Parse error: the body is not valid JSON"}
	}
	start := skipSpace(body, 0)
	if body[start] == '[' {
		entries, ok := arrayEntries(body[start:], MaxBatch)
		if !ok {
			return nil, true, &rpcError{codeInvalidRequest, fmt.Sprintf("Invalid Request: a batch holds at most %d messages", MaxBatch)}
		}
		if len(entries) == 0 {
			return nil, true, &rpcError{codeInvalidRequest, "Invalid Request: a batch must hold at least one message"}
		}
		msgs = make([]message, 0, len(entries))
		for i, raw := range entries {
			m, err := parseMessage(raw)
			if err != nil {
				return nil, true, &rpcError{codeInvalidRequest, fmt.Sprintf("Invalid Request: batch entry %d: %v", i, err)}
			}
			msgs = append(msgs, m)
		}
		return msgs, true, nil
	}
	m, err := parseMessage(body)
	if err != nil {
		return nil, false, &rpcError{codeInvalidRequest, "Invalid Request: " + err.Error()}
	}
	if !m.wire.Object {
		return nil, false, &rpcError{codeInvalidRequest, "Invalid Request: a message must be a JSON object"}
	}
	return []message{m}, false, nil
}

// parseMessage reads one message. A non-object entry of a batch is left to
// gate 1 (it has no method, so it is refused to an anonymous caller) and to
// the SDK; only a lone non-object body is an invalid request here.
func parseMessage(raw []byte) (message, error) {
	fields, isObject, err := objectFields(raw)
	if err != nil || !isObject {
		return message{}, err
	}
	m := message{wire: request.Message{
		Object:  true,
		Version: fields["jsonrpc"],
		ID:      fields["id"],
		Params:  fields["params"],
	}}
	m.method, m.hasMethod = stringValue(fields["method"])
	m.wire.Method, m.wire.HasMethod = m.method, m.hasMethod
	if !m.hasMethod || m.method != "tools/call" {
		return m, nil
	}
	params, paramsObject, err := objectFields(m.wire.Params)
	if err != nil {
		return message{}, fmt.Errorf("params: %w", err)
	}
	if paramsObject {
		m.toolName, m.hasToolName = stringValue(params["name"])
		m.wire.CallParams = params
	}
	return m, nil
}

// share is the body as the handlers behind the gate receive it.
func share(body []byte, batch bool, msgs []message) *request.Body {
	b := &request.Body{Raw: body, Batch: batch, Messages: make([]request.Message, len(msgs))}
	for i, m := range msgs {
		b.Messages[i] = m.wire
	}
	return b
}

// writeRPCError answers a request that never reached the JSON-RPC layer with
// a JSON-RPC error object (JSON-RPC 2.0 section 5: id null when it could not
// be determined), so a client that only speaks JSON-RPC can still read it.
func writeRPCError(w http.ResponseWriter, status, code int, msg string) {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": code, "message": msg},
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func tooLargeMessage(limit int64) string {
	return "Request Entity Too Large: the body exceeds " + strconv.FormatInt(limit, 10) + " bytes"
}
