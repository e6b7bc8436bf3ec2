package diagnose

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/wire"
)

// answered says in a few words what came back, after the request's name:
// "answered HTTP 500 with a text/html body ..." or "got no response: ...".
func answered(r reply) string {
	if r.failed != nil {
		return "got no response: " + r.failed.Error()
	}
	return "answered " + describe(r.Reply)
}

// describe says what a reply was, as the harness says it everywhere
// (wire.Describe), naming the body's media type for a person reading a
// diagnosis.
func describe(r *mcpclient.Reply) string {
	a := r.Answer()
	a.ContentType = wire.MediaType(r.Header.Get("Content-Type"))
	return wire.Describe(a)
}

// abbreviate quotes s, cut to about n bytes.
func abbreviate(s string, n int) string {
	head, left := cut(strings.TrimSpace(s), n)
	if left == 0 {
		return fmt.Sprintf("%q", head)
	}
	return fmt.Sprintf("%q… (%d more bytes)", head, left)
}

// cut returns s's first n bytes or fewer, ending on a whole character
// (wire.Cut), and how many bytes were left out.
func cut(s string, n int) (string, int) {
	head, _ := wire.Cut(s, n)
	return head, len(s) - len(head)
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

// split returns a path's parent and last segment; name is "" for the root.
func split(p string) (parent, name string) {
	clean := path.Clean("/" + p)
	if clean == "/" {
		return "", ""
	}
	return path.Dir(clean), path.Base(clean)
}
