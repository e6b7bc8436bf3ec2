// Package request holds the JSON-RPC body of an MCP request as the gate
// read it, so the handlers behind the gate can use what it parsed instead of
// reading and decoding the body again.
package request

import (
	"context"
	"encoding/json"
)

// Body is a request body the gate has read, checked and let through.
type Body struct {
	// Raw is the body as received, for a handler that must read it itself.
	Raw []byte
	// Batch is true when the body is a JSON array of messages.
	Batch bool
	// Messages are the body's messages: one, or a batch's entries in order.
	Messages []Message
}

// Message is one JSON-RPC message. Each field holds its member exactly as it
// appears in the body, and is nil when the member is absent; a key given
// twice was refused before the body got here.
type Message struct {
	// Object is false for a batch entry that is not a JSON object; the
	// other fields are then empty.
	Object bool
	// Version is the "jsonrpc" member.
	Version json.RawMessage
	// ID is the "id" member.
	ID json.RawMessage
	// Method is the "method" member when it is a JSON string.
	Method    string
	HasMethod bool
	// Params is the "params" member.
	Params json.RawMessage
	// CallParams are the members of a tools/call's params by decoded key,
	// when params is an object; nil otherwise.
	CallParams map[string]json.RawMessage
}

type key struct{}

// NewContext returns ctx carrying b.
func NewContext(ctx context.Context, b *Body) context.Context {
	return context.WithValue(ctx, key{}, b)
}

// FromContext returns the body the gate read, or nil when the request did
// not come through the gate.
func FromContext(ctx context.Context) *Body {
	b, _ := ctx.Value(key{}).(*Body)
	return b
}
