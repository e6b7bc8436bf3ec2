package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// JSON-RPC 2.0 error codes (JSON-RPC 2.0 section 5.1).
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// message is what gate 1 needs of one JSON-RPC message.
type message struct {
	method      string
	hasMethod   bool // "method" is present and a string
	toolName    string
	hasToolName bool // tools/call with params.name a string
}

type rpcError struct {
	code    int
	message string
}

// parseMessages reads a JSON-RPC message or batch. It refuses duplicate
// keys in the fields it reads: the SDK behind the gate decodes with another
// JSON library, and a key given twice could be read one way here and
// another way there, letting an allowed name through for a privileged one.
func parseMessages(body []byte) ([]message, *rpcError) {
	if !json.Valid(body) {
		return nil, &rpcError{codeParseError, "Parse error: the body is not valid JSON"}
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(body, &batch); err != nil || len(batch) == 0 {
			return nil, &rpcError{codeInvalidRequest, "Invalid Request: a batch must hold at least one message"}
		}
		msgs := make([]message, 0, len(batch))
		for i, raw := range batch {
			m, _, err := parseMessage(raw)
			if err != nil {
				return nil, &rpcError{codeInvalidRequest, fmt.Sprintf("Invalid Request: batch entry %d: %v", i, err)}
			}
			msgs = append(msgs, m)
		}
		return msgs, nil
	}
	m, isObject, err := parseMessage(body)
	if err != nil {
		return nil, &rpcError{codeInvalidRequest, "Invalid Request: " + err.Error()}
	}
	if !isObject {
		return nil, &rpcError{codeInvalidRequest, "Invalid Request: a message must be a JSON object"}
	}
	return []message{m}, nil
}

// parseMessage reads one message. A non-object entry of a batch is left to
// gate 1 (it has no method, so it is refused to an anonymous caller) and to
// the SDK; only a lone non-object body is an invalid request here.
func parseMessage(raw json.RawMessage) (m message, isObject bool, err error) {
	fields, isObject, err := objectFields(raw)
	if err != nil || !isObject {
		return message{}, isObject, err
	}
	if rawMethod, ok := fields["method"]; ok {
		m.hasMethod = json.Unmarshal(rawMethod, &m.method) == nil
	}
	if !m.hasMethod || m.method != "tools/call" {
		return m, true, nil
	}
	params, paramsObject, err := objectFields(fields["params"])
	if err != nil {
		return message{}, true, fmt.Errorf("params: %w", err)
	}
	if rawName, ok := params["name"]; ok && paramsObject {
		m.hasToolName = json.Unmarshal(rawName, &m.toolName) == nil
	}
	return m, true, nil
}

// objectFields returns the members of a JSON object, failing on a key given
// twice; isObject is false for any other JSON value (or none).
func objectFields(raw json.RawMessage) (fields map[string]json.RawMessage, isObject bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, false, nil
	}
	fields = map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false, err
		}
		key, _ := tok.(string) // json.Decoder only yields strings as keys
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, false, err
		}
		if _, dup := fields[key]; dup {
			return nil, false, fmt.Errorf("the key %q appears twice", key)
		}
		fields[key] = value
	}
	return fields, true, nil
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
