package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/wire"
)

// authzState is one scenario's view of the mcp-authorization pack: the
// protected resource metadata it found and how.
type authzState struct {
	// meta is the last metadata document fetched, nil before any.
	meta *document
	// as is the scenario's progress with the authorization server.
	as asFlow
}

// document is a fetched metadata document and where it came from.
type document struct {
	url         string
	status      int
	contentType string
	// object is the body decoded as a JSON object; nil when it is not one.
	object map[string]any
	body   []byte
	ex     wire.Exchange
	// builtFrom is the resource identifier a well-known URI was built from,
	// or "" when the document was found through the challenge.
	builtFrom string
	// rootFor is the MCP endpoint whose root well-known URI this is: the MCP
	// extension of RFC 9728 3 lets its resource be that endpoint.
	rootFor string
	// tried says what a client saw before it found the document.
	tried []string
}

// maxDocument bounds a metadata document read by the harness.
const maxDocument = 1 << 20

// registerAuthz binds the steps of the mcp-authorization pack
// (spec/mcp-authorization): discovery, token handling, scope challenges and
// Origin validation.
func (st *State) registerAuthz(sc stepContext) {
	st.vars["mcp_authorization.invalid_origin"] = st.Target.Profile.MCPAuthorization.InvalidOrigin

	// Discovery (discovery.1, discovery.2; RFC 9728).
	sc.Step(`^the protected resource metadata, found the way a client finds it$`, st.discoverMetadata)
	sc.Step(`^the protected resource metadata a client finds, if any$`, st.metadataIfAny)
	sc.Step(`^a client fetches the metadata the challenge's resource_metadata names$`, st.fetchChallengedMetadata)
	sc.Step(`^a client tries the well-known URIs in order, the MCP endpoint's path first, then the root$`, st.tryWellKnown)
	sc.Step(`^the metadata is a JSON object served with HTTP 200$`, st.metadataIsObject)
	sc.Step(`^the metadata's authorization_servers holds at least one absolute URL$`, st.metadataNamesServers)
	sc.Step(`^the metadata's resource is the MCP endpoint's URL$`, st.resourceIsEndpoint)
	sc.Step(`^the metadata's resource is the identifier its well-known URI was built from$`, st.resourceIsBuiltFrom)
	sc.Step(`^the metadata's scopes_supported does not name "([^"]*)"$`, st.scopesSupportedLacks)

	// Token handling and scope challenges (authorization.9.2, 10, 11.1).
	sc.Step(`^the caller sends the request that needs authorization$`, st.sendProtected)
	sc.Step(`^the caller sends the request that needs more scope$`, st.sendScoped)
	st.credentials["an expired token"] = noContext(st.withExpiredToken)
	st.credentials["a token issued for another resource"] = func(context.Context) error {
		if why := st.Target.Tokens.OtherResourceUnproven; why != "" && st.Target.Tokens.OtherResource != "" {
			return st.skip("the token obtained for mcp_authorization.other_resource is not shown to be bound to that resource: " + why +
				"; audience binding holds \"when the Authorization Server supports the capability\" (security.1), so put a token issued for another resource in mcp_authorization.other_resource_token_env")
		}
		return st.withToken(st.Target.Tokens.OtherResource, "other-resource-token")
	}
	st.credentials["a token that lacks the scope the scoped request needs"] = func(context.Context) error {
		return st.withToken(st.Target.Tokens.Limited, "limited-token")
	}
	sc.Step(`^the request is served: HTTP 2xx$`, st.served)
	sc.Step(`^the server serves the request that needs authorization with the target's credential$`, st.controlServed)
	sc.Step(`^the request is refused as malformed: 400 or 401, with a Bearer challenge$`, st.refusedAsMalformed)
	sc.Step(`^the server serves the request that needs authorization with that token$`, st.limitedServed)
	sc.Step(`^the server refuses the request 403, insufficient permissions$`, st.refusedForScope)
	sc.Step(`^the server refuses the request that needs authorization without a token$`, st.refusedWithoutToken)
	sc.Step(`^a server that refuses the request that needs authorization does so as MCP authorization does$`, st.usesMCPAuthorization)
	sc.Step(`^the caller sends the request that needs authorization with the target's credential in the URI query string$`, st.sendWithQueryToken)
	sc.Step(`^a caller presenting the target's credential with one character changed$`, st.tamperedCredential)
	sc.Step(`^the Bearer challenge names a scope$`, st.challengeNamesScope)
	sc.Step(`^the Bearer challenge's error is "([^"]*)"$`, st.challengeError)
	sc.Step(`^the Bearer challenge carries no error$`, st.challengeWithoutError)
	sc.Step(`^the challenge's scope does not name "([^"]*)"$`, st.challengeScopeLacks)

	// Origin validation (transport.1).
	st.credentials["the target's credential, or an anonymous caller when the profile has none"] = noContext(st.credentialOrAnonymous)
	sc.Step(`^the caller sends a request the server answers on its own, without an Origin header$`, func(ctx context.Context) error { return st.probeWithOrigin(ctx, "") })
	sc.Step(`^the caller sends the same request with the Origin "([^"]*)"$`, st.probeWithOrigin)
	sc.Step(`^the reply is neither 401 nor 403, so the Origin alone can decide$`, st.originControl)
}

// endpoint is the MCP endpoint's URL, the resource the pack is about.
func (st *State) endpoint() string { return st.Target.Endpoint() }

// fetchMetadata GETs a metadata document the way a client would.
func (st *State) fetchMetadata(ctx context.Context, u string) (*document, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("build request to %s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := st.Target.HTTP.Do(req)
	if err != nil {
		if lost := st.stopped(err); lost != nil && strings.HasPrefix(u, st.Target.Profile.Target) {
			return nil, lost
		}
		return nil, st.depart("an HTTP response from "+u, "a response", err.Error(), wire.Record(req, nil, nil, nil, err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument))
	if err != nil {
		return nil, st.depart("an HTTP response from "+u, "a whole body", err.Error())
	}
	d := &document{url: u, status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: body, ex: wire.Record(req, nil, resp, body, nil)}
	var obj map[string]any
	if json.Unmarshal(body, &obj) == nil {
		d.object = obj
	}
	return d, nil
}

// discoverMetadata finds the protected resource metadata as discovery.2
// tells a client to: the challenge's resource_metadata when the 401 names
// one, else the well-known URIs in order. Finding none is a departure from
// PRM-2; a document found but broken is judged by the steps that follow.
func (st *State) discoverMetadata(ctx context.Context) error {
	r, err := st.MCP.Call(ctx, "", st.protected().Method, st.protectedParams(st.protected()))
	if err := st.took(r, err); err != nil {
		return err
	}
	var tried []string
	if r.Status == http.StatusUnauthorized {
		if u := wire.ChallengeParam(r.Header.Values("WWW-Authenticate"), "Bearer", "resource_metadata"); u != "" {
			d, err := st.fetchMetadata(ctx, u)
			if err != nil {
				return err
			}
			st.authz.meta = d
			return nil
		}
		tried = append(tried, "the 401 challenge names no resource_metadata")
	} else {
		tried = append(tried, fmt.Sprintf("the request that needs authorization answered HTTP %d, not 401", r.Status))
	}
	d, err := st.firstWellKnown(ctx, tried)
	if err != nil {
		return err
	}
	if d.status != http.StatusOK {
		return st.depart("protected resource metadata discovery (discovery.2)",
			"metadata through the 401 challenge's resource_metadata or at a well-known URI",
			strings.Join(d.tried, "; "), append(r.Exchanges, d.ex)...)
	}
	st.authz.meta = d
	return nil
}

// metadataIfAny is discoverMetadata for a scenario that judges only what
// the metadata says: finding none is PRM-2's departure, not its own.
func (st *State) metadataIfAny(ctx context.Context) error {
	err := st.discoverMetadata(ctx)
	var d *outcome.Departure
	if errors.As(err, &d) {
		return st.skip("no protected resource metadata to judge (PRM-2 checks discovery): " + d.Actual)
	}
	return err
}

// firstWellKnown tries the well-known URIs in order and returns the first
// that answers 200, or the last tried when none does.
func (st *State) firstWellKnown(ctx context.Context, tried []string) (*document, error) {
	uris, err := oauthclient.ResourceMetadataURIs(st.endpoint())
	if err != nil {
		return nil, fmt.Errorf("MCP endpoint: %w", err)
	}
	var last *document
	for _, c := range uris {
		d, err := st.fetchMetadata(ctx, c.URL)
		if err != nil {
			return nil, err
		}
		d.builtFrom = c.BuiltFrom
		if c.Root {
			d.rootFor = st.endpoint()
		}
		tried = append(tried, fmt.Sprintf("%s answered HTTP %d", c.URL, d.status))
		d.tried = tried
		last = d
		if d.status == http.StatusOK {
			return d, nil
		}
	}
	return last, nil
}

func (st *State) fetchChallengedMetadata(ctx context.Context) error {
	if err := st.needReply(); err != nil {
		return err
	}
	u := wire.ChallengeParam(st.reply.Header.Values("WWW-Authenticate"), "Bearer", "resource_metadata")
	if u == "" {
		return st.skip("the 401 challenge names no resource_metadata, so a client finds the metadata at the well-known URIs (PRM-2 and PRM-4 check those)")
	}
	d, err := st.fetchMetadata(ctx, u)
	if err != nil {
		return err
	}
	st.authz.meta = d
	return nil
}

func (st *State) tryWellKnown(ctx context.Context) error {
	d, err := st.firstWellKnown(ctx, nil)
	if err != nil {
		return err
	}
	if d.status != http.StatusOK {
		return st.skip("no well-known URI serves the metadata (" + strings.Join(d.tried, "; ") +
			"); a server may offer it through the 401 challenge alone, which PRM-2 and PRM-5 check")
	}
	st.authz.meta = d
	return nil
}

func (st *State) needMetadata() (*document, error) {
	if st.authz.meta == nil {
		return nil, fmt.Errorf("no metadata fetched yet: the scenario must find it before judging it")
	}
	return st.authz.meta, nil
}

func (st *State) metadataIsObject() error {
	d, err := st.needMetadata()
	if err != nil {
		return err
	}
	// RFC 9728 3.2: "A successful response MUST use the 200 OK HTTP status
	// code and return a JSON object using the application/json content type".
	mt, _, _ := mime.ParseMediaType(d.contentType)
	if d.status != http.StatusOK || d.object == nil || mt != "application/json" {
		got := fmt.Sprintf("HTTP %d, Content-Type %q", d.status, d.contentType)
		if d.object == nil {
			got += " with body " + wire.Quote(string(d.body))
		}
		return st.depart("protected resource metadata at "+d.url+" (RFC 9728 3.2)", "HTTP 200 with a JSON object, Content-Type application/json", got, d.ex)
	}
	return nil
}

func (st *State) metadataNamesServers() error {
	d, err := st.needMetadata()
	if err != nil {
		return err
	}
	if err := st.metadataIsObject(); err != nil {
		return err
	}
	list, _ := d.object["authorization_servers"].([]any)
	for _, v := range list {
		s, ok := v.(string)
		if u, err := url.Parse(s); !ok || err != nil || u.Scheme == "" || u.Host == "" {
			return st.depart("authorization_servers", "issuer URLs", wire.JSONText(d.object["authorization_servers"]), d.ex)
		}
	}
	if len(list) == 0 {
		return st.depart("authorization_servers", "an array of at least one authorization server", wire.JSONText(d.object["authorization_servers"]), d.ex)
	}
	return nil
}

// resource returns the metadata's resource member, judging its presence.
func (st *State) resource() (string, *document, error) {
	d, err := st.needMetadata()
	if err != nil {
		return "", nil, err
	}
	if err := st.metadataIsObject(); err != nil {
		return "", nil, err
	}
	r, ok := d.object["resource"].(string)
	if !ok {
		return "", nil, st.depart("resource (RFC 9728 2, 3.3)", "a resource string", wire.JSONText(d.object["resource"]), d.ex)
	}
	return r, d, nil
}

func (st *State) resourceIsEndpoint() error {
	r, d, err := st.resource()
	if err != nil {
		return err
	}
	if r != st.endpoint() {
		return st.depart("resource of the metadata the challenge names (RFC 9728 3.3)",
			fmt.Sprintf("%q, the URL the request went to", st.endpoint()), fmt.Sprintf("%q", r), d.ex)
	}
	return nil
}

func (st *State) resourceIsBuiltFrom() error {
	r, d, err := st.resource()
	if err != nil {
		return err
	}
	want := []string{d.builtFrom}
	if d.rootFor != "" {
		// RFC 9728 3.1 drops a terminating slash before inserting the
		// well-known string, and the MCP extension lets the root document
		// describe the MCP endpoint.
		want = append(want, d.builtFrom+"/", d.rootFor)
	}
	for _, w := range want {
		if r == w {
			return nil
		}
	}
	return st.depart("resource of the metadata at "+d.url+" (RFC 9728 3.3)", "one of "+quoteAll(want), fmt.Sprintf("%q", r), d.ex)
}

func (st *State) scopesSupportedLacks(scope string) error {
	d, err := st.needMetadata()
	if err != nil {
		return err
	}
	if d.status != http.StatusOK || d.object == nil {
		return st.skip(fmt.Sprintf("the protected resource metadata at %s is no JSON object served with HTTP 200, so it has no scopes_supported to judge (PRM-3 checks that)", d.url))
	}
	list, _ := d.object["scopes_supported"].([]any)
	for _, v := range list {
		if v == scope {
			return st.depart("scopes_supported", "no "+scope, wire.JSONText(list), d.ex)
		}
	}
	return nil
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// protected is the request that needs authorization: the profile's, else
// tools/list, which the pre-flight chose because the server refused it
// anonymously.
func (st *State) protected() requestSpec {
	r := st.Target.Profile.MCPAuthorization.ProtectedRequest
	if r.Method == "" {
		return requestSpec{Method: "tools/list"}
	}
	return requestSpec{r.Method, r.Params}
}

// requestSpec is a JSON-RPC request the profile names.
type requestSpec struct {
	Method string
	Params map[string]any
}

// protectedParams are the params to send: the profile's, or what a
// well-behaved client sends with the bare method.
func (st *State) protectedParams(r requestSpec) any {
	if r.Params == nil {
		return mcpclient.DefaultParams(r.Method)
	}
	return r.Params
}

func (st *State) sendProtected(ctx context.Context) error {
	r := st.protected()
	reply, err := st.MCP.Call(ctx, st.auth, r.Method, st.protectedParams(r))
	return st.took(reply, err)
}

// sendScoped sends the request that needs more scope than the limited
// token has (the profile says so: mcp_authorization.scoped_request).
func (st *State) sendScoped(ctx context.Context) error {
	s := st.Target.Profile.MCPAuthorization.Scoped()
	r := requestSpec{s.Method, s.Params}
	reply, err := st.MCP.Call(ctx, st.auth, r.Method, st.protectedParams(r))
	return st.took(reply, err)
}

// withExpiredToken presents the profile's expired token, unless it is a
// readable JWT whose exp is still ahead: then it has not expired, and the
// scenario's premise is false.
func (st *State) withExpiredToken() error {
	token := st.Target.Tokens.Expired
	if exp, ok := jwtExpiry(token); ok && exp.After(time.Now()) {
		return st.skip(fmt.Sprintf("the token mcp_authorization.expired_token_env names is a JWT whose exp, %s, is still ahead: it has not expired; put an expired one there",
			exp.UTC().Format(time.RFC3339)))
	}
	return st.withToken(token, "expired-token")
}

// jwtExpiry reads the exp claim of a token that is a JWT with a readable
// payload (RFC 7519 4.1.4); ok is false for any other token.
func jwtExpiry(token string) (time.Time, bool) {
	claims, ok := oauthclient.Claims(token)
	exp, isNumber := claims["exp"].(float64)
	if !ok || !isNumber {
		return time.Time{}, false
	}
	return time.Unix(int64(exp), 0), true
}

func (st *State) withToken(token, capability string) error {
	if token == "" {
		return st.skip(st.Target.Lacks(capability))
	}
	st.auth = "Bearer " + token
	return nil
}

// served is TOK-6: the credential issued for the server is served, which
// the refusals of TOK-3 to TOK-5 need as their control. A 403 (insufficient
// permissions, authorization.11) leaves it not run: the credential may lack
// what this request needs.
func (st *State) served() error {
	if err := st.needReply(); err != nil {
		return err
	}
	switch {
	case st.reply.Status == http.StatusForbidden:
		return st.skip("the target's credential was refused 403, insufficient permissions for " + st.protected().Method +
			": set mcp_authorization.protected_request to a request the credential may make")
	case st.reply.Status/100 != 2:
		return st.depart("HTTP status", "the request served with a 2xx", describe(st.reply), st.reply.Last())
	}
	return nil
}

// controlServed is the positive control of a refusal: the same request with
// the credential the server issued is served, so a refusal of another token
// is known to be about the token. When it is not, the scenario is not run
// (TOK-6 judges the credential's own answer).
func (st *State) controlServed(ctx context.Context) error {
	if st.Target.Credential == "" {
		return st.skip(st.Target.Lacks("credential") + ": a refusal is judged only after the valid request was shown to be served")
	}
	r := st.protected()
	reply, err := st.MCP.Call(ctx, "Bearer "+st.Target.Credential, r.Method, st.protectedParams(r))
	if err := st.took(reply, err); err != nil {
		return err
	}
	if reply.Status/100 != 2 {
		return st.skip(fmt.Sprintf("the control failed: the request that needs authorization, sent with the target's credential, answered %s, "+
			"so a refusal of another token would say nothing (TOK-6 judges it); set mcp_authorization.protected_request to a request the credential may make",
			describe(reply)))
	}
	st.reply, st.last = nil, nil
	return nil
}

// limitedServed is SCOPE-1's premise: the limited token is one the server
// accepts, shown by the request that needs authorization being served with
// it; only then is a refusal of the request that needs more scope about the
// scope. A 401 says the token is not valid here at all, which is no
// insufficient scope.
func (st *State) limitedServed(ctx context.Context) error {
	r := st.protected()
	reply, err := st.MCP.Call(ctx, st.auth, r.Method, st.protectedParams(r))
	if err := st.took(reply, err); err != nil {
		return err
	}
	if reply.Status/100 != 2 {
		return st.skip(fmt.Sprintf("the limited token (mcp_authorization.limited_token_env) was not served the request that needs authorization (%s), "+
			"so it is not shown to be a valid token of this server; set mcp_authorization.protected_request to a request the limited token may make", describe(reply)))
	}
	st.reply, st.last = nil, nil
	return nil
}

// refusedForScope: "Servers MUST return appropriate HTTP status codes for
// authorization errors ... 403 Forbidden: Invalid scopes or insufficient
// permissions" (authorization.11), and the resource server MUST ensure "that
// its scope covers the requested resource" (OAuth 2.1 section 5). The
// profile says the limited token lacks the scope the request needs: a 2xx,
// whatever it carries, serves it.
func (st *State) refusedForScope() error {
	if err := st.needReply(); err != nil {
		return err
	}
	switch st.reply.Status {
	case http.StatusForbidden:
		return nil
	case http.StatusUnauthorized:
		return st.skip("the server refused the limited token 401 for this request, as an invalid token rather than one without the scope; " +
			"check mcp_authorization.limited_token_env and mcp_authorization.scoped_request")
	}
	return st.depart("HTTP status for a token without the scope the request needs (authorization.11, OAuth 2.1 5)", "403", describe(st.reply), st.reply.Last())
}

// sendWithQueryToken sends the request that needs authorization with the
// target's credential only in the URI query, as access_token (RFC 6750's
// query form, which OAuth 2.1 removed): resource servers "MUST ignore access
// tokens in a URI query parameter" (OAuth 2.1 section 5.1).
func (st *State) sendWithQueryToken(ctx context.Context) error {
	client, err := st.queryTokenClient()
	if err != nil {
		return err
	}
	r := st.protected()
	reply, err := client.Call(ctx, "", r.Method, st.protectedParams(r))
	return st.took(reply, err)
}

// tamperedCredential presents the target's credential with one character in
// the middle of its last dot-separated part changed: for a signed token that
// is its signature, and in the middle every bit of a base64 character
// counts, so the token is no longer the one issued.
func (st *State) tamperedCredential() error {
	c := st.Target.Credential
	if c == "" {
		return st.skip(st.Target.Lacks("credential"))
	}
	start := strings.LastIndex(c, ".") + 1
	if start >= len(c) {
		start = 0
	}
	i := start + (len(c)-start)/2
	b := []byte(c)
	if b[i] == 'A' {
		b[i] = 'Q'
	} else {
		b[i] = 'A'
	}
	st.auth = "Bearer " + string(b)
	return nil
}

// challengeToRead leaves a check of what the challenge says not run when
// there is no Bearer challenge with auth-params to read: TOK-1 to TOK-3
// judge that, once.
func (st *State) challengeToRead() error {
	if err := st.needReply(); err != nil {
		return err
	}
	if c := st.bearer("WWW-Authenticate"); c == nil || len(c.Params) == 0 {
		return st.skip("the 401 carries no Bearer challenge with auth-params to read (TOK-1 to TOK-3 judge the challenge)")
	}
	return nil
}

// refusedWithoutToken is the premise of TOK-7: the request is refused when
// it carries no token at all, so serving it with a token in the query
// could only be the query's doing. TOK-1 judges a server that serves it.
func (st *State) refusedWithoutToken(ctx context.Context) error {
	r := st.protected()
	reply, err := st.MCP.Call(ctx, "", r.Method, st.protectedParams(r))
	if err := st.took(reply, err); err != nil {
		return err
	}
	if reply.Status/100 == 2 {
		return st.skip(fmt.Sprintf("the request that needs authorization was served without any token (%s), which TOK-1 judges", describe(reply)))
	}
	st.reply, st.last = nil, nil
	return nil
}

// challengeNamesScope: MCP servers "SHOULD include a scope parameter in the
// WWW-Authenticate header" (authorization, Scope Selection Strategy).
func (st *State) challengeNamesScope() error {
	if err := st.challengeToRead(); err != nil {
		return err
	}
	if strings.TrimSpace(st.bearer("WWW-Authenticate").Params["scope"]) == "" {
		return st.depart("WWW-Authenticate header (authorization, Scope Selection Strategy)", "a Bearer challenge with a scope",
			strings.Join(st.reply.Header.Values("WWW-Authenticate"), ", "), st.reply.Last())
	}
	return nil
}

// challengeError: a request that carried a token that failed SHOULD get the
// error attribute (RFC 6750 section 3), invalid_token for a token that is
// invalid (OAuth 2.1 section 5.3.2).
func (st *State) challengeError(want string) error {
	if err := st.challengeToRead(); err != nil {
		return err
	}
	if got := st.bearer("WWW-Authenticate").Params["error"]; got != want {
		return st.depart("error of the Bearer challenge (RFC 6750 3, OAuth 2.1 5.3.2)", fmt.Sprintf("error=%q", want),
			strings.Join(st.reply.Header.Values("WWW-Authenticate"), ", "), st.reply.Last())
	}
	return nil
}

// challengeWithoutError: "If the request lacks any authentication
// information ... the resource server SHOULD NOT include an error code or
// other error information" (OAuth 2.1 section 5.3.2).
func (st *State) challengeWithoutError() error {
	if err := st.challengeToRead(); err != nil {
		return err
	}
	if e := st.bearer("WWW-Authenticate").Params["error"]; e != "" {
		return st.depart("Bearer challenge to a request without a token (OAuth 2.1 5.3.2)", "no error code",
			strings.Join(st.reply.Header.Values("WWW-Authenticate"), ", "), st.reply.Last())
	}
	return nil
}

// refusedAsMalformed: RFC 6750 3.1 answers a malformed request
// invalid_request, which SHOULD be 400, while MCP's authorization.11 lists
// 401 for an invalid token; either is a refusal. Either carries the Bearer
// challenge: the resource server "MUST include the HTTP WWW-Authenticate
// response header field" when the request "does not contain an access token
// that enables access" (OAuth 2.1 section 5.3.1).
func (st *State) refusedAsMalformed() error {
	if err := st.needReply(); err != nil {
		return err
	}
	switch st.reply.Status {
	case http.StatusBadRequest, http.StatusUnauthorized:
		return st.isBearerChallenge("WWW-Authenticate")
	}
	return st.depart("HTTP status (RFC 6750 3.1, authorization.11)", "400 or 401", describe(st.reply), st.reply.Last())
}

// bearer returns the first Bearer challenge of the reply, or nil.
func (st *State) bearer(header string) *wire.Challenge {
	return bearerIn(st.reply.Header.Values(header))
}

// isBearerChallenge is the Bearer scheme's own rule for a challenge header
// (bearerChallenge).
func (st *State) isBearerChallenge(header string) error { return st.bearerChallenge(header, "", "") }

func (st *State) challengeScopeLacks(scope string) error {
	if err := st.needReply(); err != nil {
		return err
	}
	c := st.bearer("WWW-Authenticate")
	if c == nil {
		return nil
	}
	for _, s := range strings.Fields(c.Params["scope"]) {
		if s == scope {
			return st.depart("scope of the challenge", "no "+scope, c.Params["scope"], st.reply.Last())
		}
	}
	return nil
}

func (st *State) credentialOrAnonymous() error {
	st.auth = ""
	if st.Target.Credential != "" {
		st.auth = "Bearer " + st.Target.Credential
	}
	return nil
}

// probeWithOrigin sends the lone request any MCP server answers on its own,
// without a session or a request before it (server/discover in 2026-07-28,
// initialize in earlier revisions), with an Origin header when origin is
// not "".
func (st *State) probeWithOrigin(ctx context.Context, origin string) error {
	origin, err := st.expand(origin)
	if err != nil {
		return err
	}
	extra := http.Header{}
	if origin != "" {
		extra.Set("Origin", origin)
	}
	r, err := st.MCP.Probe(ctx, st.auth, extra)
	return st.took(r, err)
}

func (st *State) originControl() error {
	if err := st.needReply(); err != nil {
		return err
	}
	switch st.reply.Status {
	case http.StatusUnauthorized:
		return st.skip("without a token the server answers 401 before it looks at the Origin: set credential_env so the Origin alone decides")
	case http.StatusForbidden:
		return st.skip("the server answers 403 even without an Origin header, so a 403 with one would not show Origin validation")
	}
	return nil
}

// protection is whether the server implements MCP authorization, found out
// once per run. Authorization is optional for MCP implementations
// (authorization.1.2): a server that neither challenges the request that
// needs authorization nor serves protected resource metadata has opted out,
// and the pack does not apply to it; it is not failed for that.
type protection struct {
	once sync.Once
	why  string
}

func (p *protection) reason(ctx context.Context, st *State) string {
	p.once.Do(func() { p.why = st.probeProtection(ctx) })
	return p.why
}

// probeProtection says why the pack does not apply, or "" when it does: a
// server applies when it answers the request that needs authorization with
// a Bearer challenge, or serves protected resource metadata. A server that
// serves the request, or refuses it with another scheme (Basic, say), has
// not opted in to MCP authorization, which is optional and only SHOULD be
// followed over HTTP (authorization.1.2); AUTHZ-1 says so once.
func (st *State) probeProtection(ctx context.Context) string {
	r, err := st.MCP.Call(ctx, "", st.protected().Method, st.protectedParams(st.protected()))
	if err != nil {
		return "" // the scenarios report the server unreachable
	}
	if r.Status == http.StatusUnauthorized && hasBearer(r.Header.Values("WWW-Authenticate")) {
		return ""
	}
	if st.servesMetadata(ctx) {
		return ""
	}
	answer := fmt.Sprintf("HTTP %d", r.Status)
	if c := r.Header.Values("WWW-Authenticate"); len(c) > 0 {
		answer += " with WWW-Authenticate: " + strings.Join(c, ", ")
	}
	return fmt.Sprintf("not applicable: the server answered the request that needs authorization (mcp_authorization.protected_request, %s) "+
		"with %s and serves no protected resource metadata, so it does not implement MCP authorization, which is optional "+
		"(authorization.1.2); if it does, name a request it serves only with a token", st.protected().Method, answer)
}

// servesMetadata says whether a well-known URI of the endpoint serves
// protected resource metadata.
func (st *State) servesMetadata(ctx context.Context) bool {
	uris, err := oauthclient.ResourceMetadataURIs(st.endpoint())
	if err != nil {
		return false
	}
	for _, u := range uris {
		if d, err := st.fetchMetadata(ctx, u.URL); err == nil && d.status == http.StatusOK && d.object != nil {
			return true
		}
	}
	return false
}

func hasBearer(challenges []string) bool { return bearerIn(challenges) != nil }

// usesMCPAuthorization is AUTHZ-1: a server that refuses the request that
// needs authorization over HTTP "SHOULD conform to this specification"
// (authorization.1.2), which answers with a Bearer challenge (RFC 6750 3)
// and protected resource metadata (RFC 9728). A server that serves the
// request has no authorization to judge.
func (st *State) usesMCPAuthorization(ctx context.Context) error {
	r, err := st.MCP.Call(ctx, "", st.protected().Method, st.protectedParams(st.protected()))
	if err := st.took(r, err); err != nil {
		return err
	}
	if r.Status/100 == 2 {
		return st.skip(fmt.Sprintf("not applicable: the server serves the request that needs authorization without a token (HTTP %d), "+
			"so it does not implement MCP authorization, which is optional (authorization.1.2)", r.Status))
	}
	if hasBearer(r.Header.Values("WWW-Authenticate")) || st.servesMetadata(ctx) {
		return nil
	}
	return st.depart("authorization of an HTTP MCP server (authorization.1.2)", "a Bearer challenge and protected resource metadata, as MCP authorization has them",
		describe(r)+" with WWW-Authenticate "+fmt.Sprintf("%q", strings.Join(r.Header.Values("WWW-Authenticate"), ", "))+", and no protected resource metadata", r.Last())
}
