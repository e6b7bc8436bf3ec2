package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/conform-mcp/conform/impl/afs"
	"github.com/conform-mcp/conform/impl/caller"
	"github.com/conform-mcp/conform/impl/role"
)

// invalidAFS is the code of afs_* arguments that do not fit the schema.
const invalidAFS = "AFS_INVALID_ARGUMENT"

const pathProperty = `"path":{"type":"string","description":"Absolute path, such as /public/readme.md"}`

// afsTools are the tools over the agent file system (PRODUCT 6). Every
// handler leaves the gates to fsys: the credential never reaches gate 3.
func afsTools(fsys *afs.FS) []tool {
	return []tool{
		{
			name:        "afs_list",
			description: "List the entries beneath a path that the host opens to network clients.",
			anonymous:   true,
			scope:       role.ScopeRead,
			schema: fmt.Sprintf(`{"type":"object","properties":{%s,`+
				`"depth":{"type":"integer","minimum":1,"maximum":%d,"description":"Levels to descend (default 1)"},`+
				`"pattern":{"type":"string","description":"Keep entries whose name matches this glob"},`+
				`"limit":{"type":"integer","minimum":1,"maximum":%d,"description":"Most entries to return (default %d)"},`+
				`"cursor":{"type":"string","description":"next_cursor of the previous page, to read on"}},`+
				`"required":["path"],"additionalProperties":false}`, pathProperty, afs.MaxListDepth, afs.MaxListLimit, afs.DefaultListLimit),
			handle: func(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult {
				a := parseArgs(raw, "path", "depth", "pattern", "limit", "cursor")
				p := a.str("path", true)
				opts := afs.ListOptions{
					Depth:   a.integer("depth", 1, 1, afs.MaxListDepth),
					Pattern: a.str("pattern", false),
					Limit:   a.integer("limit", afs.DefaultListLimit, 1, afs.MaxListLimit),
					Cursor:  a.str("cursor", false),
				}
				if a.err == nil {
					if _, err := path.Match(opts.Pattern, ""); err != nil {
						a.err = fmt.Errorf("pattern is not a valid glob")
					}
				}
				if a.err == nil && opts.Cursor != "" {
					if c, err := afs.Canonical(opts.Cursor); err != nil || c != opts.Cursor {
						a.err = fmt.Errorf("cursor must be the next_cursor of a previous listing")
					}
				}
				if a.err != nil {
					return invalidArguments(invalidAFS, "afs_list", a.err)
				}
				l, err := fsys.List(ctx, p, opts)
				if err != nil {
					return failure(err)
				}
				var b strings.Builder
				fmt.Fprintf(&b, "%s: %d entries", l.Path, len(l.Entries))
				for _, e := range l.Entries {
					b.WriteString("\n")
					b.WriteString(describe(e))
				}
				if l.Truncated {
					fmt.Fprintf(&b, "\nTruncated: call afs_list again with cursor %q for the next entries", l.NextCursor)
				}
				return success(b.String(), l)
			},
		},
		{
			name:        "afs_stat",
			description: "Describe a path: kind, size, modification time, the operations its provider implements (capabilities) and the caller's access.",
			anonymous:   true,
			scope:       role.ScopeRead,
			schema:      `{"type":"object","properties":{` + pathProperty + `},"required":["path"],"additionalProperties":false}`,
			handle: func(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult {
				a := parseArgs(raw, "path")
				p := a.str("path", true)
				if a.err != nil {
					return invalidArguments(invalidAFS, "afs_stat", a.err)
				}
				st, err := fsys.Stat(ctx, p)
				if err != nil {
					return failure(err)
				}
				acc := accessOf(ctx, st.Network)
				text := fmt.Sprintf("%s\ncapabilities: %s\ncaller: %s\nscopes: %s\nopen to network clients: %s",
					describe(st.Entry), strings.Join(opNames(st.Capabilities), " "), acc.Caller,
					strings.Join(acc.Scopes, " "), strings.Join(opNames(st.Network), " "))
				return success(text, struct {
					afs.Status
					Access access `json:"access"`
				}{st, acc})
			},
		},
		{
			name:        "afs_read",
			description: fmt.Sprintf("Read a file: at most %d bytes per call; a longer file is read in parts with offset.", fsys.Limits().ReadBytes),
			anonymous:   true,
			scope:       role.ScopeRead,
			schema: fmt.Sprintf(`{"type":"object","properties":{%s,`+
				`"offset":{"type":"integer","minimum":0,"description":"Byte offset to start at (default 0)"},`+
				`"length":{"type":"integer","minimum":1,"maximum":%d,"description":"Most bytes to return (default and most %d)"}},`+
				`"required":["path"],"additionalProperties":false}`, pathProperty, fsys.Limits().ReadBytes, fsys.Limits().ReadBytes),
			handle: func(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult {
				a := parseArgs(raw, "path", "offset", "length")
				p := a.str("path", true)
				offset := a.integer("offset", 0, 0, math.MaxInt)
				length := a.integer("length", fsys.Limits().ReadBytes, 1, fsys.Limits().ReadBytes)
				if a.err != nil {
					return invalidArguments(invalidAFS, "afs_read", a.err)
				}
				c, err := fsys.Read(ctx, p, int64(offset), length)
				if err != nil {
					return failure(err)
				}
				return readResultOf(c)
			},
		},
		{
			name:        "afs_search",
			expensive:   true,
			description: "Search the names and text of the files beneath a path for a string, case-insensitively.",
			anonymous:   true,
			scope:       role.ScopeRead,
			schema: `{"type":"object","properties":{` + pathProperty + `,` +
				`"query":{"type":"string","minLength":1,"description":"Text to look for"}},"required":["path","query"],"additionalProperties":false}`,
			handle: func(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult {
				a := parseArgs(raw, "path", "query")
				p := a.str("path", true)
				q := a.str("query", true)
				if a.err != nil {
					return invalidArguments(invalidAFS, "afs_search", a.err)
				}
				res, err := fsys.Search(ctx, p, q, afs.DefaultSearchLimit)
				if err != nil {
					return failure(err)
				}
				var b strings.Builder
				fmt.Fprintf(&b, "%d matches for %q under %s", len(res.Matches), res.Query, res.Path)
				if res.Truncated {
					b.WriteString(" (truncated)")
				}
				if res.Skipped > 0 {
					fmt.Fprintf(&b, "; %d files larger than %d bytes were searched by name only", res.Skipped, res.FileLimit)
				}
				for _, m := range res.Matches {
					if m.Line > 0 {
						fmt.Fprintf(&b, "\n%s:%d: %s", m.Path, m.Line, m.Text)
					} else {
						fmt.Fprintf(&b, "\n%s (name)", m.Path)
					}
				}
				return success(b.String(), res)
			},
		},
		{
			name:        "afs_explain",
			description: "Explain in plain language which mount, provider and policy rule decide a path.",
			anonymous:   true,
			scope:       role.ScopeRead,
			schema:      `{"type":"object","properties":{` + pathProperty + `},"required":["path"],"additionalProperties":false}`,
			handle: func(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult {
				a := parseArgs(raw, "path")
				p := a.str("path", true)
				if a.err != nil {
					return invalidArguments(invalidAFS, "afs_explain", a.err)
				}
				ex, err := fsys.Explain(ctx, p)
				if err != nil {
					return failure(err)
				}
				return success(ex.Text, ex)
			},
		},
		{
			name:        "afs_write",
			scope:       role.ScopeWrite,
			description: "Write a file (needs a credential). Mode overwrite (default) replaces it, append adds to it, create refuses an existing file.",
			schema: `{"type":"object","properties":{` + pathProperty + `,` +
				`"content":{"type":"string","description":"Text to write"},` +
				`"mode":{"type":"string","enum":["overwrite","append","create"],"description":"Default overwrite"}},` +
				`"required":["path","content"],"additionalProperties":false}`,
			handle: func(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult {
				a := parseArgs(raw, "path", "content", "mode")
				p := a.str("path", true)
				content := a.str("content", false)
				if _, ok := a.present("content"); !ok && a.err == nil {
					a.err = fmt.Errorf("content is required")
				}
				mode := afs.WriteMode(a.oneOf("mode", string(afs.Overwrite), string(afs.Append), string(afs.Create)))
				if a.err != nil {
					return invalidArguments(invalidAFS, "afs_write", a.err)
				}
				e, err := fsys.Write(ctx, p, []byte(content), mode)
				if err != nil {
					return failure(err)
				}
				return success(fmt.Sprintf("Wrote %d bytes to %s (mode %s); the file is now %d bytes", len(content), e.Path, mode, e.Size), e)
			},
		},
		{
			name:        "afs_delete",
			scope:       role.ScopeDelete,
			description: "Delete a file or an empty directory (needs a credential).",
			schema:      `{"type":"object","properties":{` + pathProperty + `},"required":["path"],"additionalProperties":false}`,
			handle: func(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult {
				a := parseArgs(raw, "path")
				p := a.str("path", true)
				if a.err != nil {
					return invalidArguments(invalidAFS, "afs_delete", a.err)
				}
				if err := fsys.Delete(ctx, p); err != nil {
					return failure(err)
				}
				c, _ := afs.Canonical(p)
				return success("Deleted "+c, map[string]any{"path": c, "deleted": true})
			},
		},
		{
			name:        "afs_exec",
			scope:       role.ScopeExec,
			description: "Run a path with arguments (needs a credential and a provider that implements exec).",
			schema: `{"type":"object","properties":{` + pathProperty + `,` +
				`"args":{"type":"array","items":{"type":"string"}}},"required":["path"],"additionalProperties":false}`,
			handle: func(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult {
				a := parseArgs(raw, "path", "args")
				p := a.str("path", true)
				argv := a.strs("args")
				if a.err != nil {
					return invalidArguments(invalidAFS, "afs_exec", a.err)
				}
				out, err := fsys.Exec(ctx, p, argv)
				if err != nil {
					return failure(err)
				}
				return success(out, nil)
			},
		},
	}
}

// readResult is afs_read's structured content: the content itself is the
// text content, not repeated here.
type readResult struct {
	afs.Entry
	Encoding string `json:"encoding"`
	// Offset and Length say which bytes of the file the content holds.
	Offset int64 `json:"offset"`
	Length int   `json:"length"`
	// Truncated says the file goes on; NextOffset is where.
	Truncated  bool  `json:"truncated"`
	NextOffset int64 `json:"next_offset,omitempty"`
}

// isText reports whether b is UTF-8 without control characters other than
// tab, line and page breaks and escape (terminal colours). JSON spells each
// other control character in six bytes, so a file of NULs would take six
// times the read limit in a reply; as base64 it takes a third more.
func isText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' && c != 0x1b {
			return false
		}
	}
	return utf8.Valid(b)
}

// readResultOf turns a chunk into afs_read's result. Text goes back as is;
// anything else as base64, which a text content can carry without loss. A
// chunk that stops before the end of the file says so in a second text
// content, with the offset that reads on (issue 8 item 10).
func readResultOf(c afs.Chunk) *mcp.CallToolResult {
	r := readResult{Entry: c.Entry, Encoding: "utf-8", Offset: c.Offset, Length: len(c.Data), Truncated: c.More}
	text := string(c.Data)
	if !isText(c.Data) {
		r.Encoding = "base64"
		text = base64.StdEncoding.EncodeToString(c.Data)
	}
	res := success(text, r)
	if c.More {
		r.NextOffset = c.Offset + int64(len(c.Data))
		res.StructuredContent = r
		res.Content = append(res.Content, &mcp.TextContent{Text: fmt.Sprintf(
			"Truncated: bytes %d to %d of %d; call afs_read with offset %d to read on", c.Offset, r.NextOffset, c.Size, r.NextOffset)})
	}
	return res
}

// access is afs_stat's account of the caller: who the credential says it is,
// the scopes its role grants (the upper bound of what it may call, package
// role), and what gate 3 opens to it, which is the same for every network
// client (source 5.7), so the role never changes that list.
type access struct {
	Caller  string          `json:"caller"`
	Scopes  []string        `json:"scopes"`
	Network []afs.Operation `json:"network"`
}

func accessOf(ctx context.Context, network []afs.Operation) access {
	c := caller.FromContext(ctx)
	if c.Anonymous() {
		// Anonymous callers read through the allowlist (source 5.3).
		return access{Caller: "anonymous", Scopes: []string{role.ScopeRead}, Network: network}
	}
	return access{Caller: c.Role, Scopes: role.ScopesOf(c.Role), Network: network}
}

func describe(e afs.Entry) string {
	if e.Kind == afs.KindDirectory {
		return fmt.Sprintf("directory %s", e.Path)
	}
	return fmt.Sprintf("file %s (%d bytes, modified %s)", e.Path, e.Size, e.Modified.UTC().Format("2006-01-02T15:04:05Z"))
}

func opNames(ops []afs.Operation) []string {
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = string(op)
	}
	return out
}
