package runner

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/harness/wire"
	"github.com/conform-mcp/conform/spec"
)

// CheckHostFor is the first half of the pre-flight for a pack. The source
// pack's (CheckHost) holds the target to the source document's idea of a
// tool host, whose anonymous tools/list answers 200; the mcp-authorization
// pack is for any MCP server, most of which answer an anonymous request 401,
// so for it the pre-flight asks only that the endpoint answers as an MCP
// server: with a JSON-RPC message, or with the 401 or 403 Bearer challenge
// of a protected resource (MCP authorization, RFC 6750 section 3). Anything
// else (a web page, nothing at the URL) is the wrong target, said once,
// and every status is otherwise left to the scenarios.
func CheckHostFor(ctx context.Context, t *target.Target, pack string) error {
	if pack != spec.Authorization {
		return CheckHost(ctx, t)
	}
	r, err := probe(ctx, t, t.Endpoint(), "")
	if err != nil {
		return fmt.Errorf("%s (check the URL of the MCP endpoint)", unanswered("target "+t.Endpoint(), err, probeBound(t)))
	}
	if answersAsMCP(r) {
		return chooseProtected(t, r)
	}
	last := r.Last()
	return fmt.Errorf("%s does not answer as an MCP server: an anonymous tools/list got neither a JSON-RPC message nor a Bearer challenge\n"+
		"  sent:      %s %s %s\n  received:  %s\nCheck the URL of the MCP endpoint. No scenario was run.",
		t.Endpoint(), last.Method, last.URL, last.RequestBody, describe(last.Status, last.ResponseHeader, last.ResponseBody, r.Message))
}

// answersAsMCP is whether a reply comes from an MCP server: a JSON-RPC
// message (a result or an error), or a protected resource's challenge.
func answersAsMCP(r *mcpclient.Reply) bool {
	if r.Message != nil {
		return true
	}
	if r.Status != http.StatusUnauthorized && r.Status != http.StatusForbidden {
		return false
	}
	for _, v := range http.Header(r.Last().ResponseHeader).Values("WWW-Authenticate") {
		for _, c := range wire.ParseChallenges(v) {
			if strings.EqualFold(c.Scheme, "Bearer") {
				return true
			}
		}
	}
	return false
}

// chooseProtected names the request that needs authorization when the
// profile does not: the anonymous tools/list just sent, if the server
// refused it 401. A server that served it lets anonymous callers list tools,
// and only the profile can name what it serves only with a token; the suite
// never calls a tool the profile did not name.
func chooseProtected(t *target.Target, r *mcpclient.Reply) error {
	a := &t.Profile.MCPAuthorization
	if a.ProtectedRequest.Method != "" {
		return nil
	}
	if r.Status/100 == 2 {
		return &UsageError{msg: fmt.Sprintf("%s serves an anonymous tools/list (HTTP %d), so it is no request that needs authorization: "+
			"set mcp_authorization.protected_request to a request this server serves only with a token", t.Endpoint(), r.Status)}
	}
	a.ProtectedRequest = profile.Request{Method: "tools/list"}
	return nil
}
