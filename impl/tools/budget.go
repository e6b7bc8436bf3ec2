package tools

import (
	"context"
	"encoding/json"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/conform-mcp/conform/impl/budget"
)

// call runs t within the budget of the request it belongs to (package
// budget): after the request's other calls, in one of the host's slots when
// t is expensive (slots.go), by its deadline, and charged
// with the bytes its result encodes to, which it holds of the host's bound
// on replies in flight until the request is answered. A call past the budget does no work
// or loses its result; the request is then answered with the budget's
// error alone (budget.Bound), so the failure here is never seen.
func (t tool) call(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult {
	b := budget.FromContext(ctx)
	ctx, done, err := b.Turn(ctx)
	if err != nil {
		return failure(err)
	}
	defer done()
	if t.slots != nil {
		release, err := t.slots.take(ctx)
		if err != nil {
			// The request's time ended while it waited (the budget says
			// so), or the request went away.
			if ferr := b.Finish(); ferr != nil {
				return failure(ferr)
			}
			return failure(err)
		}
		defer release()
	}
	res := t.handle(ctx, raw)
	if err := b.Finish(); err != nil {
		return failure(err)
	}
	if err := b.Reply(encodedSize(res)); err != nil {
		return failure(err)
	}
	if err := b.Cover(ctx); err != nil {
		return failure(err)
	}
	return res
}

// encodedSize bounds how many bytes res takes in JSON, without writing its
// texts out: a read's text encodes to up to six times its size, and
// encoding it once more only to count it would double what a call holds.
// The texts are counted by escapedLen, the rest of the result encoded with
// the texts left empty.
func encodedSize(res *mcp.CallToolResult) int64 {
	shell := *res
	shell.Content = make([]mcp.Content, len(res.Content))
	var texts int64
	for i, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts += escapedLen(t.Text)
			c = &mcp.TextContent{Meta: t.Meta, Annotations: t.Annotations}
		}
		shell.Content[i] = c
	}
	// The result's own MarshalJSON writes what the SDK writes for it,
	// without the encoder's copy through a compaction pass.
	data, err := shell.MarshalJSON()
	if err != nil {
		return texts
	}
	return texts + int64(len(data))
}

// escapedLen is the length of s as encoding/json writes it in a string,
// quotes left out: two bytes for a quote, a backslash, \n, \r and \t, six
// for <, >, &, every other control character (\b and \f included, which
// encoding/json writes in two: the count may only be high), U+2028, U+2029
// and each byte of invalid UTF-8 (written \ufffd). No encoder writes a
// string longer, so the count bounds what the SDK writes.
func escapedLen(s string) int64 {
	var n int64
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			n += 6
		} else {
			n += int64(size)
		}
		i += size
	}
	return n
}
