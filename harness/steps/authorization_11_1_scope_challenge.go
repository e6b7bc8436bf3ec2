package steps

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/conform-mcp/conform/harness/mcpclient"
)

// sendScoped sends the request that needs more scope than the limited
// token has (the profile says so: mcp_authorization.scoped_request).
func (st *authzState) sendScoped(ctx context.Context) error {
	s := st.Target.Profile.MCPAuthorization.Scoped()
	r := requestSpec{s.Method, s.Params}
	reply, err := st.MCP.Call(ctx, st.auth, r.Method, st.protectedParams(r))
	return st.took(reply, err)
}

// limitedServed is the premise of every judgement of the limited token
// (SCOPE-1, SCOPE-3, SCOPE-4, CHAL-5): the limited token is one the server
// takes as valid, shown by the request that needs authorization being
// served with it, or refused 403 with error="insufficient_scope", the
// server's own word that the token is valid but lacks scope (RFC 6750 3.1);
// only then is a refusal of the request that needs more scope about the
// scope. A 401 says the token is not valid here at all, which is no
// insufficient scope.
func (st *authzState) limitedServed(ctx context.Context) error {
	return st.control(ctx, st.auth, func(reply *mcpclient.Reply) string {
		if reply.Status/100 == 2 || refusedForScopeAlone(reply.Status, reply.Header.Values("WWW-Authenticate"), http.StatusForbidden) {
			return ""
		}
		return fmt.Sprintf("the limited token (mcp_authorization.limited_token_env) was neither served the request that needs authorization nor refused it 403 for insufficient scope (%s), "+
			"so it is not shown to be a valid token of this server; set mcp_authorization.protected_request to a request the limited token may make", describe(reply))
	})
}

// refusedForScopeAlone says whether an answer of the given status carries a
// Bearer challenge whose error is insufficient_scope: "The request requires
// higher privileges than provided by the access token" (RFC 6750 3.1).
func refusedForScopeAlone(status int, challenges []string, want int) bool {
	c := bearerIn(challenges)
	return status == want && c != nil && c.Params["error"] == "insufficient_scope"
}

// refusedForScope: "Servers MUST return appropriate HTTP status codes for
// authorization errors ... 403 Forbidden: Invalid scopes or insufficient
// permissions" (authorization.11), and the resource server MUST ensure "that
// its scope covers the requested resource" (OAuth 2.1 section 5). The
// profile says the limited token lacks the scope the request needs: a 2xx,
// whatever it carries, serves it.
func (st *authzState) refusedForScope() error {
	h, err := st.needLast()
	if err != nil {
		return err
	}
	switch h.status {
	case http.StatusForbidden:
		return nil
	case http.StatusUnauthorized:
		if refusedForScopeAlone(h.status, h.header.Values("WWW-Authenticate"), http.StatusUnauthorized) {
			// The server's own word: the token is valid and lacks the
			// scope, which authorization.11 answers 403, not 401.
			return st.depart("HTTP status for a token without the scope the request needs (authorization.11: 403 for insufficient scope)", "403",
				h.describe()+" with "+strings.Join(h.header.Values("WWW-Authenticate"), ", "), h.lastExchange())
		}
		return st.skip("the server refused the limited token 401 for this request, as an invalid token rather than one without the scope; " +
			"check mcp_authorization.limited_token_env and mcp_authorization.scoped_request")
	}
	return st.depart("HTTP status for a token without the scope the request needs (authorization.11, OAuth 2.1 5)", "403", h.describe(), h.lastExchange())
}
