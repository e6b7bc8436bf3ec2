// Package tools is the reference host's MCP server: the afs_* tools over the
// agent file system, the content tools when collections are declared, and
// the SDK's streamable HTTP handler that serves them.
package tools

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/conform-mcp/conform/impl/afs"
	"github.com/conform-mcp/conform/impl/content"
)

// tool is one tool: what tools/list shows, whether anonymous callers may use
// it (PRODUCT 6), the scope a credential needs to call it, and its handler.
type tool struct {
	name        string
	description string
	anonymous   bool
	scope       string
	schema      string
	handle      func(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult
	// expensive marks the tools whose calls take the host's slots.
	expensive bool
	// slots is set by New on the expensive tools.
	slots slots
}

// Server holds the tools and the MCP server that lists and calls them.
type Server struct {
	mcp   *mcp.Server
	tools []tool
}

// Info names the server in the initialize result.
type Info struct {
	Name    string
	Version string
}

// New returns the server for fsys. lib may be nil: the content tools are
// listed only when collections are declared (source 1, 7.5 step 2). At most
// searches expensive calls run at once (slots.go).
func New(info Info, fsys *afs.FS, lib *content.Library, searches int) *Server {
	s := &Server{tools: afsTools(fsys)}
	if lib != nil && len(lib.Names()) > 0 {
		s.tools = append(s.tools, contentTools(lib)...)
	}
	shared := newSlots(searches)
	for i := range s.tools {
		if s.tools[i].expensive {
			s.tools[i].slots = shared
		}
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: info.Name, Version: info.Version}, &mcp.ServerOptions{
		// Source 4 names resources/list and prompts/list as methods of the
		// endpoint; declaring the capabilities makes them answer empty lists
		// rather than "method not found". No list changes: the host is
		// stateless, so there is no session to notify.
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Resources: &mcp.ResourceCapabilities{},
			Prompts:   &mcp.PromptCapabilities{},
		},
	})
	for _, t := range s.tools {
		s.mcp.AddTool(&mcp.Tool{
			Name:        t.name,
			Description: t.description,
			InputSchema: json.RawMessage(t.schema),
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return t.call(ctx, req.Params.Arguments), nil
		})
	}
	return s
}

// Anonymous returns the names of the tools a caller without a credential
// may call, in the order tools/list shows them: the gate's allowlist.
func (s *Server) Anonymous() []string { return s.names(true) }

// Authenticated returns the names of the tools that need a credential.
func (s *Server) Authenticated() []string { return s.names(false) }

// Scopes maps every tool name to the scope a credential's role must grant to
// call it (package role): the gate refuses a call beyond the role before the
// tool runs.
func (s *Server) Scopes() map[string]string {
	out := make(map[string]string, len(s.tools))
	for _, t := range s.tools {
		out[t.name] = t.scope
	}
	return out
}

func (s *Server) names(anonymous bool) []string {
	out := []string{}
	for _, t := range s.tools {
		if t.anonymous == anonymous {
			out = append(out, t.name)
		}
	}
	return out
}

// Handler serves MCP over streamable HTTP, stateless with JSON replies
// (PRODUCT 6): no session id, and no initialize required before a call,
// while clients that do initialise work as usual. A single call the gate
// has parsed goes to the server directly (direct.go); everything else
// through the SDK's streamable handler.
func (s *Server) Handler() http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// The host refuses a foreign Host header on every endpoint before
		// this handler (impl/host); the SDK's own check, which knows only
		// loopback names, would refuse the public name behind a proxy.
		DisableLocalhostProtection: true,
	})
	return acceptJSON(decodeName(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if call, version, ok := directCall(r); ok {
			if t, args, ok := s.directTool(r, call); ok {
				serveTool(w, r, call.ID, t, args)
				return
			}
			s.serveCall(w, r, call, version)
			return
		}
		h.ServeHTTP(w, r)
	})))
}
