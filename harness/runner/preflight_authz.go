package runner

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/harness/wire"
)

// checkMCPServer is the mcp-authorization pack's pre-flight. The source
// pack's (CheckHost) holds the target to the source document's idea of a
// tool host, whose anonymous tools/list answers 200; this pack is for any
// MCP server, most of which answer an anonymous request 401, so it asks
// only that the endpoint answers as an MCP server: with a JSON-RPC message,
// or with the 401 or 403 Bearer challenge of a protected resource (MCP
// authorization, RFC 6750 section 3). A 401 or 403 challenging with another
// scheme (HTTP Basic, say) is a server with authorization of its own, which
// MCP allows (authorization.1.2): the run goes on, AUTHZ-1 says so once,
// and the rest of the pack finds itself not applicable. Anything else (a
// web page, nothing at the URL) is the wrong target, said once, and every
// status is otherwise left to the scenarios.
func checkMCPServer(ctx context.Context, t *target.Target) error {
	r, err := probe(ctx, t, t.Endpoint(), "")
	if err != nil {
		return fmt.Errorf("%s (check the URL of the MCP endpoint)", unanswered("target "+t.Endpoint(), err, probeBound(t)))
	}
	if answersAsMCP(r) {
		return chooseProtected(ctx, t, r)
	}
	if ownScheme(r) {
		t.Profile.MCPAuthorization.ProtectedRequest = defaultProtected(t)
		return nil
	}
	last := r.Last()
	return fmt.Errorf("%s does not answer as an MCP server: an anonymous tools/list got neither a JSON-RPC message nor a Bearer challenge\n"+
		"  sent:      %s %s %s\n  received:  %s\n%s No scenario was run.",
		t.Endpoint(), last.Method, last.URL, last.RequestBody, describe(last.Status, last.ResponseHeader, last.ResponseBody, r.Message), suggestEndpoint(ctx, t))
}

// suggestEndpoint is the advice after a target that did not answer as an
// MCP server: this pack takes the MCP endpoint's own URL, so a base URL
// given instead is the likeliest mistake, said with the endpoint at /mcp
// when that one answers as an MCP server.
func suggestEndpoint(ctx context.Context, t *target.Target) string {
	u, err := url.Parse(t.Endpoint())
	if err != nil || strings.Trim(u.Path, "/") != "" {
		return "Check the URL of the MCP endpoint."
	}
	guess := strings.TrimRight(t.Endpoint(), "/") + "/mcp"
	if r, err := probe(ctx, t, guess, ""); err == nil && answersAsMCP(r) {
		return fmt.Sprintf("%s answers as an MCP server: this pack takes the MCP endpoint's own URL, so give --target %s.", guess, guess)
	}
	return "This pack takes the MCP endpoint's own URL (such as " + guess + "), not the server's base URL."
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

// ownScheme is whether a reply refuses the request 401 or 403 with a
// challenge of another scheme than Bearer: authorization, but not MCP's.
func ownScheme(r *mcpclient.Reply) bool {
	if r.Status != http.StatusUnauthorized && r.Status != http.StatusForbidden {
		return false
	}
	for _, v := range http.Header(r.Last().ResponseHeader).Values("WWW-Authenticate") {
		if len(wire.ParseChallenges(v)) > 0 {
			return true
		}
	}
	return false
}

// defaultProtected is the request that needs authorization: the profile's,
// else the anonymous tools/list the pre-flight sent.
func defaultProtected(t *target.Target) profile.Request {
	if r := t.Profile.MCPAuthorization.ProtectedRequest; r.Method != "" {
		return r
	}
	return profile.Request{Method: "tools/list"}
}

// chooseProtected names the request that needs authorization when the
// profile does not: the anonymous tools/list just sent, if the server
// refused it 401, or if it serves it and no protected resource metadata
// either, as a server without authorization does (authorization.1.2: it is
// optional), which the scenarios then find not applicable. A server that
// served it and serves the metadata lets anonymous callers list tools and
// protects something else, which only the profile can name; the suite never
// calls a tool the profile did not name.
func chooseProtected(ctx context.Context, t *target.Target, r *mcpclient.Reply) error {
	a := &t.Profile.MCPAuthorization
	if a.ProtectedRequest.Method != "" {
		return nil
	}
	if r.Status/100 == 2 && servesResourceMetadata(ctx, t) {
		return &UsageError{msg: fmt.Sprintf("%s serves an anonymous tools/list (HTTP %d), so it is no request that needs authorization: "+
			"set mcp_authorization.protected_request to a request this server serves only with a token", t.Endpoint(), r.Status)}
	}
	a.ProtectedRequest = defaultProtected(t)
	return nil
}

// servesResourceMetadata is whether a well-known URI of the MCP endpoint
// serves protected resource metadata (RFC 9728 section 3): a JSON object
// with HTTP 200.
func servesResourceMetadata(ctx context.Context, t *target.Target) bool {
	uris, err := oauthclient.ResourceMetadataURIs(t.Endpoint())
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, probeBound(t))
	defer cancel()
	for _, u := range uris {
		if d, err := oauthclient.New("", oauthclient.Endpoints{}, t.HTTP).Get(ctx, u.URL); err == nil && d.Status == http.StatusOK && d.JSON != nil {
			return true
		}
	}
	return false
}
