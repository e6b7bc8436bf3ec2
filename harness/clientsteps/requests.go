package clientsteps

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/clientrun"
	"github.com/conform-mcp/conform/harness/scripted"
	"github.com/conform-mcp/conform/harness/wire"
)

// What the judgements read of the recorded requests: which of a server's
// endpoints each reached.

func path(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Path
}

func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Scheme + "://" + u.Host
}

// at says whether r reached the URL u (scheme, host and path; any query).
func at(r scripted.Request, u string) bool {
	return u != "" && r.URL.Scheme+"://"+r.URL.Host+r.URL.Path == strings.SplitN(u, "?", 2)[0]
}

// isMCP says whether r is a request to srv's MCP endpoint.
func isMCP(r scripted.Request, srv *scripted.Server) bool {
	return r.Server == srv.Name && at(r, srv.Endpoint)
}

// isResourceMetadata says whether r asked srv for protected resource
// metadata: at a well-known URI, or at the URL its challenge names.
func isResourceMetadata(r scripted.Request, srv *scripted.Server) bool {
	return r.Server == srv.Name && r.Method == "GET" &&
		(strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") || at(r, srv.Metadata))
}

// isServerMetadata says whether r asked for authorization server metadata.
func isServerMetadata(r scripted.Request, srv *scripted.Server) bool {
	return r.Server == srv.Name && r.Method == "GET" &&
		(strings.Contains(r.URL.Path, "/.well-known/oauth-authorization-server") || strings.Contains(r.URL.Path, "/.well-known/openid-configuration"))
}

// isAuthorization says whether r is an authorization request.
func isAuthorization(r scripted.Request, srv *scripted.Server) bool {
	return r.Server == srv.Name && at(r, srv.Authorize)
}

// isCodeRedemption says whether r redeems an authorization code.
func isCodeRedemption(r scripted.Request, srv *scripted.Server) bool {
	return r.Server == srv.Name && strings.HasSuffix(r.URL.Path, "/token") && r.Form.Get("grant_type") == "authorization_code"
}

// isToken says whether r is any token request.
func isToken(r scripted.Request, srv *scripted.Server) bool {
	return r.Server == srv.Name && r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/token")
}

// filter returns the requests of reqs that keep says to.
func filter(reqs []scripted.Request, keep func(scripted.Request) bool) []scripted.Request {
	var out []scripted.Request
	for _, r := range reqs {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// after returns the requests that arrived after seq.
func after(reqs []scripted.Request, seq int) []scripted.Request {
	return filter(reqs, func(r scripted.Request) bool { return r.Seq > seq })
}

// rpcMethod is the JSON-RPC method of a request body, "" when it has none.
func rpcMethod(body []byte) (method string, isRequest bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil {
		return "", false
	}
	return m.Method, len(m.ID) > 0 && string(m.ID) != "null"
}

// bearerOf is the token of r's Authorization header, "" when none.
func bearerOf(r scripted.Request) string {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// carries says whether r carries token anywhere: a header, its URL or its body.
func carries(r scripted.Request, token string) bool {
	if token == "" {
		return false
	}
	for _, vs := range r.Header {
		if slices.ContainsFunc(vs, func(v string) bool { return strings.Contains(v, token) }) {
			return true
		}
	}
	return strings.Contains(r.URL.String(), token) || strings.Contains(string(r.Body), token)
}

// exchange is a recorded request as a report shows it, credentials masked.
func exchange(r scripted.Request) wire.Exchange {
	return wire.Exchange{
		Method:         r.Method,
		URL:            wire.MaskURL(r.URL),
		RequestHeader:  wire.MaskHeader(r.Header),
		RequestBody:    wire.MaskBody(r.Header.Get("Content-Type"), r.Body),
		Status:         r.Status,
		ResponseHeader: wire.MaskHeader(r.RespHeader),
		ResponseBody:   wire.MaskBody(r.RespHeader.Get("Content-Type"), r.RespBody),
	}
}

// runExchange shows a run of the client among the exchanges: the command
// as run and what it wrote, URLs' credentials masked.
func runExchange(r *clientrun.Result, secrets []string) wire.Exchange {
	out := fmt.Sprintf("exit status %d", r.ExitCode)
	if c := r.Crashed(); c != "" {
		out = c
	}
	for _, o := range r.Opened {
		out += fmt.Sprintf("\nopened (%s) %s", o.Via, wire.MaskQuery(o.URL))
		if o.Error != "" {
			out += ": " + o.Error
		}
	}
	if r.Stdout != "" {
		out += "\n--- stdout\n" + r.Stdout
	}
	if r.Stderr != "" {
		out += "\n--- stderr\n" + r.Stderr
	}
	return wire.Exchange{Method: "RUN", URL: "sh -c " + clientrun.Quote(r.Script), ResponseBody: wire.MaskSecret(wire.MaskQuery(out), secrets...)}
}
