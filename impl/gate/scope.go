package gate

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/impl/caller"
	"github.com/conform-mcp/conform/impl/role"
)

// beyondRole returns the scopes a request needs that the verified caller's
// role does not grant, or nil when the role
// covers every message. Only tools/call of a known tool needs a scope: other
// methods, and names no tool has, go on to the SDK as before, so the role
// check changes nothing but the calls it refuses. It runs after gate 2 and
// only for a caller whose credential verified; anonymous calls never reach
// it (their answer is source 7.2's 401).
func (g *gate) beyondRole(c caller.Caller, msgs []message) []string {
	var missing []string
	for _, m := range msgs {
		if m.method != "tools/call" || !m.hasToolName {
			continue
		}
		need, known := g.cfg.ToolScopes[m.toolName]
		if known && !role.Allows(c.Role, need) && !slices.Contains(missing, need) {
			missing = append(missing, need)
		}
	}
	return missing
}

// insufficientScope writes the scope challenge of the MCP authorization
// specification ("Scope Challenge Handling") and RFC 6750 section 3.1: HTTP
// 403 with a Bearer challenge naming error="insufficient_scope", the scopes
// the request needs, and the protected-resource metadata, so a client can
// ask the person for a wider role. As that specification recommends, scope
// lists the scopes the credential already holds beside the missing ones, so
// a client that asks for exactly them loses nothing it had. The tool never ran.
func (g *gate) insufficientScope(w http.ResponseWriter, r *http.Request, c caller.Caller, missing []string) {
	var needed []string
	for _, s := range role.Scopes {
		if role.Allows(c.Role, s) || slices.Contains(missing, s) {
			needed = append(needed, s)
		}
	}
	h := w.Header()
	h.Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+strings.Join(needed, " ")+
		`", resource_metadata="`+g.cfg.BaseURL.Of(r)+`/.well-known/oauth-protected-resource"`)
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	body, _ := json.Marshal(map[string]string{
		"error": "insufficient_scope",
		"error_description": "The credential's role (" + c.Role + ") does not grant " + strings.Join(missing, " ") +
			"; sign in again and choose a role that does",
	})
	_, _ = w.Write(body)
}
