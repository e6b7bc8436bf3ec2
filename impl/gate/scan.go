package gate

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// The functions here walk a body that json.Valid has accepted, so they can
// find the members of an object and the entries of an array in one pass,
// without a decoder's buffers and tokens. They never see malformed JSON.

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace (RFC 8259 section 2).
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string that opens at b[i].
func stringEnd(b []byte, i int) int {
	for i++; b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// valueEnd returns the index just past the value that starts at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	default: // a number, true, false or null
		for i < len(b) && !isDelimiter(b[i]) {
			i++
		}
		return i
	}
}

func isDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// arrayEntries returns the raw entries of the array raw, which starts with
// '['. It stops with ok false at entry limit+1, so a body of a million tiny
// entries costs no more than limit of them.
func arrayEntries(raw []byte, limit int) (entries []json.RawMessage, ok bool) {
	i := skipSpace(raw, 1)
	for raw[i] != ']' {
		if len(entries) == limit {
			return nil, false
		}
		end := valueEnd(raw, i)
		entries = append(entries, raw[i:end])
		i = skipSpace(raw, end)
		if raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return entries, true
}

// objectFields returns the members of the JSON object raw, failing on a key
// given twice; isObject is false for any other JSON value (or none). Keys
// are compared as decoded, so "\u006dethod" is the key "method", as it is to
// any JSON decoder behind the gate.
func objectFields(raw []byte) (fields map[string]json.RawMessage, isObject bool, err error) {
	i := skipSpace(raw, 0)
	if i == len(raw) || raw[i] != '{' {
		return nil, false, nil
	}
	fields = map[string]json.RawMessage{}
	i = skipSpace(raw, i+1)
	for raw[i] != '}' {
		keyEnd := stringEnd(raw, i)
		key := unquote(raw[i:keyEnd])
		i = skipSpace(raw, keyEnd)
		i = skipSpace(raw, i+1) // the colon
		end := valueEnd(raw, i)
		if _, dup := fields[key]; dup {
			return nil, false, fmt.Errorf("the key %q appears twice", key)
		}
		fields[key] = raw[i:end]
		i = skipSpace(raw, end)
		if raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return fields, true, nil
}

// unquote turns a quoted JSON string into its text. Only one with an escape or
// a byte outside ASCII needs a decoder; invalid UTF-8 becomes U+FFFD, as
// encoding/json decodes it.
func unquote(quoted []byte) string {
	for _, c := range quoted {
		if c == '\\' || c >= utf8.RuneSelf {
			var key string
			_ = json.Unmarshal(quoted, &key) // valid: json.Valid passed the body
			return key
		}
	}
	return string(quoted[1 : len(quoted)-1])
}

// stringValue returns the text of raw when it is a JSON string.
func stringValue(raw []byte) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	return unquote(raw), true
}
