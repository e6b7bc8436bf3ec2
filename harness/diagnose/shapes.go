package diagnose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/mcpclient"
)

// answered says in a few words what came back, after the request's name:
// "answered HTTP 500 with a text/html body ..." or "got no response: ...".
func answered(r reply) string {
	if r.failed != nil {
		return "got no response: " + r.failed.Error()
	}
	return "answered " + describe(r.Reply)
}

// describe says what a reply was: its status and the kind of body.
func describe(r *mcpclient.Reply) string {
	s := fmt.Sprintf("HTTP %d", r.Status)
	switch {
	case r.Message != nil && r.Message.Error != nil:
		return s + fmt.Sprintf(" with JSON-RPC error %d %q", r.Message.Error.Code, r.Message.Error.Message)
	case r.Message != nil && len(r.Message.Result) > 0:
		return s + " with a JSON-RPC result"
	}
	return s + " with " + bodyKind(r.Header, r.Body)
}

// bodyKind names a body by its media type and shows its start.
func bodyKind(h http.Header, body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return "an empty body"
	}
	kind := "a body"
	if mt, _, err := mime.ParseMediaType(h.Get("Content-Type")); err == nil {
		kind = "a " + mt + " body"
		if strings.ContainsRune("aeiou", rune(mt[0])) {
			kind = "an " + mt + " body"
		}
	}
	return kind + " " + abbreviate(string(body), 120)
}

// abbreviate quotes s, cut to about n bytes.
func abbreviate(s string, n int) string {
	head, left := cut(strings.TrimSpace(s), n)
	if left == 0 {
		return fmt.Sprintf("%q", head)
	}
	return fmt.Sprintf("%q… (%d more bytes)", head, left)
}

// cut returns s's first n bytes or fewer, ending on a rune boundary, and how
// many bytes were left out.
func cut(s string, n int) (string, int) {
	if len(s) <= n {
		return s, 0
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n], len(s) - n
}

// nameList shows at most a dozen tool names.
func nameList(names []string) string {
	switch {
	case len(names) == 0:
		return "no tools"
	case len(names) > 12:
		return strings.Join(names[:12], ", ") + fmt.Sprintf(" and %d more", len(names)-12)
	}
	return strings.Join(names, ", ")
}

// errorCode returns the error code that begins a tool's error text (source
// section 2: the code, then the path, then an explanation), or "".
func errorCode(text string) string {
	code, _, ok := strings.Cut(strings.TrimSpace(text), ":")
	if !ok || code == "" {
		return ""
	}
	for _, r := range code {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return ""
		}
	}
	return code
}

func orUnknown(code string) string {
	if code == "" {
		return "an error that names no error code"
	}
	return code
}

// operations are the operations afs_stat may name in capabilities (the
// reference host's set, PRODUCT.md section 6; the source shows no full list).
var operations = []string{"list", "read", "stat", "search", "write", "delete", "exec", "explain"}

// operationOf maps a tool name to the operation whose capability step 5
// checks. afs_<operation> is certain; for any other name the first word is a
// guess (sure is false), since the source shows no mapping.
func operationOf(tool string) (op string, sure bool) {
	rest, prefixed := strings.CutPrefix(tool, "afs_")
	if prefixed && slices.Contains(operations, rest) {
		return rest, true
	}
	words := strings.FieldsFunc(rest, func(r rune) bool { return strings.ContainsRune("_-. /", r) })
	if len(words) == 0 {
		return tool, false
	}
	return words[0], false
}

// Capabilities finds the "capabilities" list of strings in an afs_stat
// result: anywhere in its structured content, or in its text read as JSON.
// The source (section 1) says the list is there but does not show the shape.
func Capabilities(tr *mcpclient.ToolResult) ([]string, bool) {
	for _, raw := range [][]byte{tr.Structured, []byte(tr.Text)} {
		var v any
		if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
			continue
		}
		if caps, ok := findCapabilities(v); ok {
			return caps, true
		}
	}
	return nil, false
}

// findCapabilities searches depth first, keys in order, so that the answer
// does not depend on map iteration.
func findCapabilities(v any) ([]string, bool) {
	switch t := v.(type) {
	case map[string]any:
		if list, ok := t["capabilities"].([]any); ok {
			caps := make([]string, 0, len(list))
			for _, c := range list {
				s, ok := c.(string)
				if !ok {
					return nil, false
				}
				caps = append(caps, s)
			}
			return caps, true
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if caps, ok := findCapabilities(t[k]); ok {
				return caps, true
			}
		}
	case []any:
		for _, e := range t {
			if caps, ok := findCapabilities(e); ok {
				return caps, true
			}
		}
	}
	return nil, false
}

// names reports whether an afs_list result names the child name. The source
// does not show the listing's shape, so every string in the JSON (or every
// word of plain text) counts, whole or as a path's last segment.
func names(tr *mcpclient.ToolResult, name string) bool {
	match := func(s string) bool {
		s = strings.TrimRight(s, "/")
		return s == name || strings.HasSuffix(s, "/"+name)
	}
	parsed := false
	for _, raw := range [][]byte{tr.Structured, []byte(tr.Text)} {
		var v any
		if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
			continue
		}
		parsed = true
		if anyString(v, match) {
			return true
		}
	}
	if parsed {
		return false
	}
	words := strings.FieldsFunc(tr.Text, func(r rune) bool { return strings.ContainsRune(" \t\r\n,;:\"'()[]{}", r) })
	return slices.ContainsFunc(words, match)
}

func anyString(v any, match func(string) bool) bool {
	switch t := v.(type) {
	case string:
		return match(t)
	case map[string]any:
		for _, e := range t {
			if anyString(e, match) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if anyString(e, match) {
				return true
			}
		}
	}
	return false
}

// split returns a path's parent and last segment; name is "" for the root.
func split(p string) (parent, name string) {
	clean := path.Clean("/" + p)
	if clean == "/" {
		return "", ""
	}
	return path.Dir(clean), path.Base(clean)
}

// challengeParam returns the value of param in the first challenge of scheme
// among WWW-Authenticate values (RFC 9110 section 11.6.1: a header may hold
// several challenges, each a scheme followed by auth-params; values are
// tokens or quoted strings). "" when there is none.
func challengeParam(values []string, scheme, param string) string {
	for _, v := range values {
		current := ""
		s := v
		for {
			s = strings.TrimLeft(s, " \t,")
			if s == "" {
				break
			}
			end := strings.IndexAny(s, " \t,=")
			if end < 0 {
				end = len(s)
			}
			token := s[:end]
			s = strings.TrimLeft(s[end:], " \t")
			if !strings.HasPrefix(s, "=") {
				// A token not followed by "=" starts the next challenge.
				current = token
				continue
			}
			var value string
			value, s = paramValue(strings.TrimLeft(s[1:], " \t"))
			if strings.EqualFold(current, scheme) && strings.EqualFold(token, param) {
				return value
			}
		}
	}
	return ""
}

// paramValue reads a token or a quoted string and returns it and the rest.
func paramValue(s string) (string, string) {
	if !strings.HasPrefix(s, `"`) {
		end := strings.IndexAny(s, " \t,")
		if end < 0 {
			return s, ""
		}
		return s[:end], s[end:]
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), s[i+1:]
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), ""
}
