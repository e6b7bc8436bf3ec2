package mcpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/conform-mcp/conform/harness/wire"
)

// Reply is what the host answered to one Call, Notify or Send.
type Reply struct {
	// Status, Header and Body are the HTTP response as received; Body is
	// bounded (8 MiB) and, for an event stream, ends where the client stopped
	// reading.
	Status int
	Header http.Header
	Body   []byte
	// Message is the JSON-RPC response to this request, decoded from a JSON
	// body or from the event stream; nil if there is none.
	Message *Message
	// Exchanges are every exchange this call made, masked: handshake,
	// the call, and any retry on a fresh session. The last is the reply's own.
	Exchanges []wire.Exchange
}

// Message is a JSON-RPC 2.0 response (JSON-RPC 2.0 section 5).
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *RPCError       `json:"error"`
}

// RPCError is the error member of a JSON-RPC response (JSON-RPC 2.0 section 5.1).
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// ToolResult is an MCP CallToolResult (MCP 2025-06-18, Server Features, Tools,
// "Tool Result").
type ToolResult struct {
	// IsError is true when the tool ran and its operation failed; the source
	// document (section 7.1) counts such a 200 as a failure.
	IsError bool
	// Text is the text contents joined by "\n".
	Text string
	// Content is every content item as sent.
	Content []json.RawMessage
	// Structured is structuredContent, if the host sent it.
	Structured json.RawMessage
}

// ToolResult decodes Message.Result as an MCP CallToolResult; error if there
// is no result or it is not one.
func (r *Reply) ToolResult() (*ToolResult, error) {
	result, err := r.result()
	if err != nil {
		return nil, err
	}
	var raw struct {
		Content    *[]json.RawMessage `json:"content"`
		IsError    bool               `json:"isError"`
		Structured json.RawMessage    `json:"structuredContent"`
	}
	if err := json.Unmarshal(result, &raw); err != nil {
		return nil, fmt.Errorf("result is not a CallToolResult: %w", err)
	}
	// content is the one member every CallToolResult has.
	if raw.Content == nil {
		return nil, errors.New("result is not a CallToolResult: no content array")
	}
	tr := &ToolResult{IsError: raw.IsError, Content: *raw.Content, Structured: raw.Structured}
	var texts []string
	for _, item := range tr.Content {
		var c struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(item, &c); err != nil {
			return nil, fmt.Errorf("result is not a CallToolResult: content item: %w", err)
		}
		if c.Type == "text" {
			texts = append(texts, c.Text)
		}
	}
	tr.Text = strings.Join(texts, "\n")
	return tr, nil
}

// ToolNames decodes Message.Result of tools/list: the tool names in order.
func (r *Reply) ToolNames() ([]string, error) {
	result, err := r.result()
	if err != nil {
		return nil, err
	}
	var list struct {
		Tools *[]struct {
			Name *string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(result, &list); err != nil {
		return nil, fmt.Errorf("result is not a tools/list result: %w", err)
	}
	if list.Tools == nil {
		return nil, errors.New("result is not a tools/list result: no tools array")
	}
	names := make([]string, 0, len(*list.Tools))
	for i, t := range *list.Tools {
		if t.Name == nil {
			return nil, fmt.Errorf("result is not a tools/list result: tool %d has no name", i)
		}
		names = append(names, *t.Name)
	}
	return names, nil
}

// Last returns the last exchange (the call itself), for failure messages.
func (r *Reply) Last() wire.Exchange {
	if len(r.Exchanges) == 0 {
		return wire.Exchange{}
	}
	return r.Exchanges[len(r.Exchanges)-1]
}

// result is Message.Result, or why there is none.
func (r *Reply) result() (json.RawMessage, error) {
	switch {
	case r.Message == nil:
		return nil, fmt.Errorf("no JSON-RPC response (HTTP %d)", r.Status)
	case r.Message.Error != nil:
		return nil, fmt.Errorf("JSON-RPC error %d: %s", r.Message.Error.Code, r.Message.Error.Message)
	case len(r.Message.Result) == 0 || string(r.Message.Result) == "null":
		return nil, errors.New("JSON-RPC response has no result")
	}
	return r.Message.Result, nil
}

// readReply reads a bounded body and finds the response matching want (the
// request id as JSON text, "" for any response). The transport allows exactly
// two kinds of answer to a request: one JSON object, or an SSE stream that
// carries the response (Transports, "Sending Messages to the Server");
// any other body yields no Message. A body cut short by the host or by the
// context is kept as far as it came.
func readReply(resp *http.Response, want string) ([]byte, *Message) {
	body := io.LimitReader(resp.Body, maxBody)
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mediaType == "text/event-stream" {
		var seen bytes.Buffer
		msg := readEvents(io.TeeReader(body, &seen), want)
		return seen.Bytes(), msg
	}
	raw, _ := io.ReadAll(body)
	if mediaType == "application/json" {
		return raw, pick(raw, want)
	}
	return raw, nil
}

// ResponseTo returns the JSON-RPC response in the reply, JSON or event
// stream, whose id is id (compact JSON, such as 2 or "a"), or nil. A batch
// answered in one body has one response per request it holds; this finds
// the one a given request got.
func (r *Reply) ResponseTo(id string) *Message {
	if r == nil {
		return nil
	}
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mediaType == "text/event-stream" {
		return readEvents(bytes.NewReader(r.Body), id)
	}
	return pick(r.Body, id)
}

// pick returns the response matching want from a JSON-RPC message or batch.
func pick(raw []byte, want string) *Message {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	if raw[0] != '[' {
		return response(raw, want)
	}
	var batch []json.RawMessage
	if json.Unmarshal(raw, &batch) != nil {
		return nil
	}
	for _, one := range batch {
		if m := response(one, want); m != nil {
			return m
		}
	}
	return nil
}

// response decodes raw if it is a JSON-RPC response matching want. Requests
// and notifications from the server are not responses and are passed over.
func response(raw []byte, want string) *Message {
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return nil
	}
	_, isRequest := members["method"]
	_, hasResult := members["result"]
	_, hasError := members["error"]
	if isRequest || !(hasResult || hasError) {
		return nil
	}
	if want != "" && !answers(members["id"], want, hasError) {
		return nil
	}
	var m Message
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return &m
}

// answers reports whether a response id answers the request whose id is want.
func answers(id json.RawMessage, want string, isError bool) bool {
	// JSON-RPC 2.0 section 5: an error about a request whose id could not be
	// determined carries a null id; it still answers this request.
	if len(id) == 0 || string(id) == "null" {
		return isError
	}
	var compact bytes.Buffer
	return json.Compact(&compact, id) == nil && compact.String() == want
}

// Answer is the reply as a one-line description reads it (wire.Describe).
func (r *Reply) Answer() wire.Answer { return AnswerOf(r.Status, r.Body, r.Message) }

// AnswerOf is an HTTP answer and the JSON-RPC message it carried (nil for
// none) as a one-line description reads them.
func AnswerOf(status int, body []byte, m *Message) wire.Answer {
	a := wire.Answer{Status: status, Body: body}
	if m != nil {
		if m.Error != nil {
			a.RPCError = &wire.RPCError{Code: m.Error.Code, Message: m.Error.Message}
		} else {
			a.RPCResult = m.Result != nil
		}
	}
	return a
}
