package gate

import (
	"net/http"
	"strings"
)

// unauthorizedBody is the 401 body, the same for every cause (source 7.2).
const unauthorizedBody = `{"error":"Unauthorized"}`

// unauthorized writes the 401 of source 7.2: a Bearer challenge whose
// resource_metadata points at the protected-resource metadata (RFC 9728
// 5.1), and a body that does not say which gate refused, so a caller cannot
// probe which privileged tools exist (source 5.5). The challenge names the
// same scopes whatever was called (MCP authorization, Scope Selection
// Strategy: servers SHOULD include a scope), and error="invalid_token" when
// the request carried a credential (RFC 6750 section 3 SHOULD), which the
// caller knows already; without one it names no error (OAuth 2.1 5.3.2).
func (g *gate) unauthorized(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	challenge := "Bearer "
	if _, presented := r.Header["Authorization"]; presented {
		challenge += `error="invalid_token", `
	}
	if len(g.cfg.ChallengeScopes) > 0 {
		challenge += `scope="` + strings.Join(g.cfg.ChallengeScopes, " ") + `", `
	}
	h.Set("WWW-Authenticate", challenge+`resource_metadata="`+g.cfg.BaseURL.Of(r)+`/.well-known/oauth-protected-resource"`)
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte(unauthorizedBody))
}
