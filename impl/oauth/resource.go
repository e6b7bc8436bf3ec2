package oauth

import (
	"net/http"
	"net/url"
	"strings"
)

// errInvalidTarget is RFC 8707 section 2's error for a resource the server
// will not issue a token for.
const errInvalidTarget = "invalid_target"

// checkResource holds a request's resource indicators (RFC 8707 section 2)
// to the one protected resource this host serves, its MCP endpoint. Every
// token it issues is for that endpoint alone, so a client asking for
// another resource is told so, rather than handed a token that the other
// resource would be right to refuse (MCP authorization, Token Handling). A
// request without resource is accepted: RFC 8707 leaves it optional, and the
// source document's clients send none. Scheme and host compare without case
// and a trailing slash is ignored, as the MCP specification asks servers to
// accept for robustness (Canonical Server URI).
func (s *Server) checkResource(r *http.Request, v url.Values) *oauthError {
	own := s.base.Of(r) + "/mcp"
	for _, res := range v["resource"] {
		if !sameResource(res, own) {
			return badRequest(errInvalidTarget, "This host issues tokens only for its MCP endpoint, "+own)
		}
	}
	return nil
}

func sameResource(a, b string) bool {
	ua, err := url.Parse(a)
	if err != nil {
		return false
	}
	ub, err := url.Parse(b)
	if err != nil {
		return false
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host) &&
		strings.TrimSuffix(ua.EscapedPath(), "/") == strings.TrimSuffix(ub.EscapedPath(), "/") &&
		ua.RawQuery == "" && ua.Fragment == "" && ua.User == nil
}
