package wire

import (
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"slices"
	"strings"
	"unicode/utf8"
)

// shownBody is how much of a body a one-line description quotes: enough to
// recognise a web page or an error, short enough to read at a glance.
const shownBody = 200

// Answer is what a one-line description needs of an HTTP answer: its
// status and body, and what JSON-RPC made of it when it carried a message.
type Answer struct {
	Status int
	Body   []byte
	// RPCError is the JSON-RPC error the answer carried, if any.
	RPCError *RPCError
	// RPCResult is true when the answer carried a JSON-RPC result.
	RPCResult bool
	// ContentType, when set, is the media type a description names with a
	// body it quotes ("with a text/html body ..."), for a person who must
	// tell a web page from an API at a glance (the pre-flight, a diagnosis).
	ContentType string
	// JSON is the body decoded as a JSON object, when a non-MCP answer (an
	// OAuth endpoint's, a metadata document) is one: described by its
	// error, or else by its members.
	JSON map[string]any
}

// RPCError is a JSON-RPC error as a description names it.
type RPCError struct {
	Code    int
	Message string
}

// Describe says in a few words what an answer was, for a departure's
// "actual", a not-run reason or the pre-flight's message: the status, then
// the JSON-RPC error or result, or else the start of the body. Every part of
// the harness describes an answer this one way.
func Describe(a Answer) string {
	s := fmt.Sprintf("HTTP %d", a.Status)
	switch {
	case a.RPCError != nil:
		s += fmt.Sprintf(" with JSON-RPC error %d %q", a.RPCError.Code, a.RPCError.Message)
	case a.RPCResult:
		s += " with a JSON-RPC result"
	case a.JSON != nil:
		if code, ok := a.JSON["error"]; ok {
			s += " with error " + JSONText(code)
			if d, ok := a.JSON["error_description"]; ok {
				s += " and error_description " + JSONText(d)
			}
			return s
		}
		return s + " with members " + strings.Join(slices.Sorted(maps.Keys(a.JSON)), ", ")
	case len(a.Body) > 0 && a.ContentType != "":
		s += " with " + article(a.ContentType) + " " + a.ContentType + " body " + Quote(string(a.Body))
	case len(a.Body) > 0:
		s += " with body " + Quote(string(a.Body))
	case a.ContentType != "":
		s += " with an empty body"
	}
	return s
}

// article is the indefinite article of a word.
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// MediaType is the media type of a Content-Type value, "" when it has none.
func MediaType(contentType string) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return mt
}

// Quote quotes s, trimmed, for a description, cut to its first shownBody
// bytes on a whole character.
func Quote(s string) string {
	s = strings.TrimSpace(s)
	if cut, ok := Cut(s, shownBody); ok {
		return fmt.Sprintf("%q…", cut)
	}
	return fmt.Sprintf("%q", s)
}

// Cut returns the first n bytes of s or fewer, never ending inside a UTF-8
// sequence, and whether it left anything out.
func Cut(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// JSONText is a JSON value as JSON text.
func JSONText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
