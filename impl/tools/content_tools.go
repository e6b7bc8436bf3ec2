package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/conform-mcp/conform/impl/content"
	"github.com/conform-mcp/conform/impl/role"
)

// invalidContent is the code of content-tool arguments that do not fit.
const invalidContent = "CONTENT_INVALID_ARGUMENT"

// contentTools are the tools over declared collections. They are anonymous
// (PRODUCT 6) and read through the file system, so gate 3 still applies.
func contentTools(lib *content.Library) []tool {
	collection := fmt.Sprintf(`"collection":{"type":"string","enum":%s}`, mustJSON(lib.Names()))
	return []tool{
		{
			name:        "search_content",
			expensive:   true,
			description: "Search the content collections for a string, case-insensitively.",
			anonymous:   true,
			scope:       role.ScopeRead,
			schema: `{"type":"object","properties":{"query":{"type":"string","minLength":1},` + collection + `},` +
				`"required":["query"],"additionalProperties":false}`,
			handle: func(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult {
				a := parseArgs(raw, "query", "collection")
				q := a.str("query", true)
				c := a.str("collection", false)
				if a.err != nil {
					return invalidArguments(invalidContent, "search_content", a.err)
				}
				hits, err := lib.Search(ctx, q, c)
				if err != nil {
					return failure(err)
				}
				var b strings.Builder
				fmt.Fprintf(&b, "%d matches for %q", len(hits), q)
				for _, h := range hits {
					fmt.Fprintf(&b, "\n%s/%s", h.Collection, h.ID)
					if h.Line > 0 {
						fmt.Fprintf(&b, ":%d: %s", h.Line, h.Text)
					}
				}
				return success(b.String(), map[string]any{"query": q, "hits": hits})
			},
		},
		{
			name:        "list_content",
			description: "List the items of the content collections.",
			anonymous:   true,
			scope:       role.ScopeRead,
			schema:      `{"type":"object","properties":{` + collection + `},"additionalProperties":false}`,
			handle: func(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult {
				a := parseArgs(raw, "collection")
				c := a.str("collection", false)
				if a.err != nil {
					return invalidArguments(invalidContent, "list_content", a.err)
				}
				items, err := lib.List(ctx, c)
				if err != nil {
					return failure(err)
				}
				var b strings.Builder
				fmt.Fprintf(&b, "%d items", len(items))
				for _, it := range items {
					fmt.Fprintf(&b, "\n%s/%s (%d bytes)", it.Collection, it.ID, it.Size)
				}
				return success(b.String(), map[string]any{"items": items})
			},
		},
		{
			name:        "get_content",
			description: "Get one content item by collection and id.",
			anonymous:   true,
			scope:       role.ScopeRead,
			schema: `{"type":"object","properties":{` + collection + `,"id":{"type":"string","minLength":1}},` +
				`"required":["collection","id"],"additionalProperties":false}`,
			handle: func(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult {
				a := parseArgs(raw, "collection", "id")
				c := a.str("collection", true)
				id := a.str("id", true)
				if a.err != nil {
					return invalidArguments(invalidContent, "get_content", a.err)
				}
				item, text, err := lib.Get(ctx, c, id)
				if err != nil {
					return failure(err)
				}
				res := success(text, item)
				if item.Truncated {
					res.Content = append(res.Content, &mcp.TextContent{Text: fmt.Sprintf(
						"Truncated: this is the first %d bytes of %d; read the rest of %s with afs_read and an offset", len(text), item.Size, item.Path)})
				}
				return res
			},
		},
	}
}

// mustJSON marshals a value that cannot fail to marshal (a string slice).
func mustJSON(v []string) string {
	b, _ := json.Marshal(v)
	return string(b)
}
