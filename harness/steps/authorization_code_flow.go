package steps

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sync"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/wire"
)

// asFlow is one scenario's progress through the authorization code flow.
type asFlow struct {
	md       *oauthclient.ServerMetadata
	clientID string
	// secret authenticates clientID at the token endpoint: the profile's,
	// or the one its registration answered with; zero for a public client.
	secret oauthclient.Secret
	// resp is the last authorization response.
	resp   *authorizeAnswer
	code   string
	verify string
	// token is the last token endpoint answer.
	token *oauthclient.Reply
	// refresh is the refresh token first issued.
	refresh string
	// scope is what the client asks for (scopeChoice).
	scope string
	// sent is the last authorization request the scenario sent, changed or
	// approved.
	sent oauthclient.AuthorizationRequest
	// previous is the authorization response read before resp, for
	// comparing two answers.
	previous *authorizeAnswer
	// redirectURI is the scenario's client's own redirect URI when it is
	// not the profile's.
	redirectURI string
	// plainRefused is how registration refused a plain http redirect URI
	// (TLS-3), "" when it was not asked or took it.
	plainRefused string
	// second is the second client, when the scenario has one, and
	// secondSecret how it authenticates.
	second       string
	secondSecret oauthclient.Secret
	// wider is the advertised scope a refresh asked for beyond the grant.
	wider string
	// newest is the refresh token the first refresh returned.
	newest string
	// controlScope is the scope a refresh compares its own with.
	controlScope string
}

// scopeChoice is the scope the run's authorization requests ask for, chosen
// once as MCP's Scope Selection Strategy says a client chooses it: the
// profile's mcp_authorization.scope, else the 401 challenge's scope, else
// every scope of the protected resource metadata's scopes_supported, else
// none.
type scopeChoice struct {
	once  sync.Once
	value string
}

func (st *authzState) chooseScope(ctx context.Context) string {
	c := &st.Suite.scope
	c.once.Do(func() {
		if s := st.Target.Profile.MCPAuthorization.Scope; s != "" {
			c.value = s
			return
		}
		r, err := st.MCP.Call(ctx, "", st.protected().Method, st.protectedParams(st.protected()))
		if err != nil || r.Status != http.StatusUnauthorized {
			return
		}
		_, c.value, _ = oauthclient.FollowChallenge(ctx, st.Target.HTTP, st.endpoint(), r.Status, r.Header.Values("WWW-Authenticate"))
	})
	return c.value
}

// authorizeAnswer is what the authorization endpoint did with a request.
type authorizeAnswer struct {
	status   int
	location string
	// redirected is true when the answer sent the user agent to the
	// request's redirect_uri; params are its query then.
	redirected bool
	params     url.Values
	ex         wire.Exchange
	// approvalErr is why the approval command, handed a page, failed: the
	// server may have refused the request after a sign-in, or the command
	// may have failed on its own.
	approvalErr error
	// allowOrigin is the answer's Access-Control-Allow-Origin.
	allowOrigin []string
}

// stateSent is the state of every authorization request: characters that
// need encoding in a query, so that echoing it "exactly" (OAuth 2.1 4.1.2)
// is seen, and only visible ASCII and space, the syntax RFC 6749 (appendix
// A.5, VSCHAR) gives state.
const stateSent = "conform state/+&=%~"

// request is a valid authorization request of the scenario's client.
func (st *authzState) request() (oauthclient.AuthorizationRequest, string) {
	verifier, challenge := oauthclient.PKCE()
	return oauthclient.AuthorizationRequest{
		Endpoint: st.authz.as.md.String("authorization_endpoint"), ClientID: st.authz.as.clientID,
		RedirectURI: st.redirectURI(), Challenge: challenge, Method: "S256", State: stateSent,
		Resource: st.endpoint(), Scope: st.authz.as.scope,
	}, verifier
}

// sendAuthorization sends an authorization request the harness changed
// itself, without a person: a server refuses a bad request before it asks
// anyone (OAuth 2.1 section 4.1.2.1), so the answer is read as is. Only a
// page that may be a consent page is handed to the approval command.
func (st *authzState) sendAuthorization(ctx context.Context, change func(*oauthclient.AuthorizationRequest)) error {
	return st.sendEdited(ctx, change, nil)
}

// sendEdited is sendAuthorization with the URL's query edited last, for
// what an AuthorizationRequest cannot say: a parameter sent empty, one left
// out that it always sends, one no specification defines. The answer the
// scenario read before is kept in previous.
func (st *authzState) sendEdited(ctx context.Context, change func(*oauthclient.AuthorizationRequest), edit func(url.Values)) error {
	req, _ := st.request()
	if change != nil {
		change(&req)
	}
	st.authz.as.sent = req
	u, err := req.URL()
	if err != nil {
		return err
	}
	if edit != nil {
		p, err := url.Parse(u)
		if err != nil {
			return err
		}
		q := p.Query()
		edit(q)
		p.RawQuery = q.Encode()
		u = p.String()
	}
	st.authz.as.previous = st.authz.as.resp
	a, err := st.openAuthorization(ctx, u, "")
	if err != nil {
		return err
	}
	if a.status/100 == 3 && a.location != "" {
		if r, err := oauthclient.ReadRedirect(a.location, req.RedirectURI); err == nil && r.ToRedirectURI {
			a.redirected, a.params = true, r.Params
		}
	}
	// A page, or a redirect elsewhere (a login page), may lead to consent:
	// only the approval command can say where it ends.
	if !a.redirected && (a.status == http.StatusOK || a.status/100 == 3) && st.Target.ApproveAuthorization != nil {
		loc, err := st.Target.ApproveAuthorization(ctx, u)
		if err != nil {
			a.approvalErr = err
		} else if r, err := oauthclient.ReadRedirect(loc, req.RedirectURI); err == nil && r.ToRedirectURI {
			a.redirected, a.params, a.location = true, r.Params, loc
		}
	}
	st.authz.as.resp = a
	return nil
}

// openAuthorization opens an authorization URL as a user agent would, with
// an Origin header when origin is not "", and follows no redirect: the
// answer is read as the server gave it.
func (st *authzState) openAuthorization(ctx context.Context, u, origin string) (*authorizeAnswer, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if origin != "" {
		hreq.Header.Set("Origin", origin)
	}
	return st.askAuthorization(hreq)
}

// askAuthorization sends a request to the authorization endpoint and
// follows no redirect. A throttled request is sent once more after a short
// Retry-After; one still throttled leaves the scenario not run: no rule
// the pack checks is about the endpoint's rate limit (RFC 6585 section 4).
func (st *authzState) askAuthorization(hreq *http.Request) (*authorizeAnswer, error) {
	var a *authorizeAnswer
	r, err := st.obeyRetryAfter(hreq.Context(), "authorization request", func() (*oauthclient.Reply, error) {
		var err error
		if a, err = st.sendAuthorizationRequest(hreq); err != nil {
			return nil, err
		}
		return &oauthclient.Reply{Status: a.status, Header: http.Header(a.ex.ResponseHeader)}, nil
	})
	if err != nil {
		return nil, err
	}
	if r.Throttled() {
		return nil, st.skipThrottled(r, "authorization request at "+hreq.URL.Scheme+"://"+hreq.URL.Host+hreq.URL.Path, "")
	}
	return a, nil
}

// sendAuthorizationRequest sends hreq, which has no body, once.
func (st *authzState) sendAuthorizationRequest(hreq *http.Request) (*authorizeAnswer, error) {
	noFollow := *st.Target.HTTP
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := noFollow.Do(hreq)
	if err != nil {
		return nil, st.depart("an HTTP response from the authorization endpoint", "a response", err.Error(), wire.Record(hreq, nil, nil, nil, err))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxDocument))
	a := &authorizeAnswer{status: resp.StatusCode, location: resp.Header.Get("Location"), ex: wire.Record(hreq, nil, resp, body, nil),
		allowOrigin: resp.Header.Values("Access-Control-Allow-Origin")}
	if a.location != "" {
		if loc, err := resp.Location(); err == nil {
			a.location = loc.String()
		}
	}
	return a, nil
}

func (st *authzState) needAnswer() (*authorizeAnswer, error) {
	if st.authz.as.resp == nil {
		return nil, fmt.Errorf("no authorization request sent yet")
	}
	return st.authz.as.resp, nil
}

func (a *authorizeAnswer) describe() string {
	switch {
	case a.redirected && a.ex.Method == "":
		return "a redirect to " + a.location + ", handed back by the approval command (oauth.authorization_approval_command)"
	case a.redirected:
		return "a redirect to " + a.location
	case a.location != "":
		return fmt.Sprintf("HTTP %d to %s", a.status, a.location)
	}
	return fmt.Sprintf("HTTP %d", a.status)
}

// approveAuthorization sends a valid request through the approval command.
// What the command hands back is the person's decision, not the server's:
// when it is no redirect to the redirect_uri, or a refusal by the person
// (access_denied, OAuth 2.1 section 4.1.2.1), nothing was approved, and the
// scenario is not run, quoting what came back.
func (st *authzState) approveAuthorization(ctx context.Context) error {
	if st.Target.ApproveAuthorization == nil {
		return st.skip(st.Target.Lacks("authorization-approval"))
	}
	req, verifier := st.request()
	st.authz.as.sent = req
	r, err := oauthclient.Authorize(ctx, st.Target.ApproveAuthorization, req)
	if err != nil {
		return st.skip("the approval command (oauth.authorization_approval_command) could not complete the authorization: " + err.Error())
	}
	if !r.ToRedirectURI {
		return st.skip(fmt.Sprintf("the approval command (oauth.authorization_approval_command) handed back %q, not a redirect to the redirect_uri %s, so the request was not approved", r.Location, req.RedirectURI))
	}
	switch e := r.Params.Get("error"); e {
	case "":
	case "access_denied":
		return st.skip(fmt.Sprintf("the authorization was denied (%s), so the request was not approved: the approval command (oauth.authorization_approval_command) must approve it", r.Location))
	default:
		// The valid request the scenario needs could not be had: a set-up
		// the profile may mend, never the requirement's failure.
		return st.skip(fmt.Sprintf("the authorization server refused the valid authorization request with %s (%s), so the flow this check needs could not be set up; %s",
			e, r.Params.Get("error_description"), st.remedyFor(e)))
	}
	st.authz.as.resp = &authorizeAnswer{location: r.Location, redirected: r.ToRedirectURI, params: r.Params}
	st.authz.as.verify = verifier
	return nil
}

// remedyFor names the profile key that may mend an authorization error,
// and says when the authorization server serves confidential clients only.
func (st *authzState) remedyFor(code string) string {
	if md := st.authz.as.md; md != nil && st.authz.as.secret.Value == "" {
		if methods := md.Strings("token_endpoint_auth_methods_supported"); len(methods) > 0 && !slices.Contains(methods, "none") {
			return fmt.Sprintf("the authorization server's token_endpoint_auth_methods_supported %q lacks none, so it serves confidential clients only: "+
				"set mcp_authorization.client_id to a client registered with redirect_uri %s and mcp_authorization.client_secret_env to the variable holding its secret",
				methods, st.redirectURI())
		}
	}
	switch code {
	case "invalid_scope":
		return "set mcp_authorization.scope to a scope the authorization server grants this client"
	case "invalid_target":
		return "the authorization server refuses the resource the suite sends (the MCP endpoint's URL); check the target URL"
	case "unauthorized_client", "invalid_client":
		return "set mcp_authorization.client_id to a client the authorization server lets use the authorization code grant"
	}
	return "check mcp_authorization.client_id, mcp_authorization.scope and mcp_authorization.redirect_uri"
}

// needPublicClient leaves a rule that binds the authorization server only
// for public clients not run when the scenario's client authenticates with
// a secret, the profile's or the one its registration answered with: what
// the server does for a confidential client says nothing of it. rule says
// what the server does for public clients.
func (st *authzState) needPublicClient(rule string) error {
	s := st.authz.as.secret
	if s.Value == "" {
		return nil
	}
	from := "its registration answered with a client_secret"
	if st.Target.Profile.MCPAuthorization.ClientID != "" {
		from = "the profile gives its secret (mcp_authorization.client_secret_env)"
	}
	return st.skip(fmt.Sprintf("the client %q is a confidential client (%s; it authenticates by %s), and the authorization server %s: "+
		"the rule is judged with a public client only; set mcp_authorization.client_id to a public client registered with redirect_uri %s",
		st.authz.as.clientID, from, s.Method(), rule, st.redirectURI()))
}

// redeemedForToken is the valid redemption a scenario builds on: when it
// fails, the flow could not be set up and the scenario is not run.
func (st *authzState) redeemedForToken(ctx context.Context) error {
	if err := st.redeem(ctx, nil); err != nil {
		return err
	}
	return st.setUp(st.authz.as.token, "redeeming the code the valid way")
}

// setUp leaves the scenario not run when a token request the scenario
// needed to succeed did not: it quotes the answer and what may mend it.
func (st *authzState) setUp(r *oauthclient.Reply, what string) error {
	if tok, _ := r.String("access_token"); r.Status == http.StatusOK && tok != "" {
		return nil
	}
	return st.skip(fmt.Sprintf("%s failed (%s), so the flow this check needs could not be set up; %s", what, describeOAuth(r), st.tokenRemedy(r)))
}

// tokenRemedy says what a token endpoint's refusal of the scenario's client
// points to, by its error (OAuth 2.1 3.2.4): invalid_client is the client's
// authentication, which a secret mends; invalid_request is the request's
// form, which the error_description quoted with it explains; a 200 without
// an access_token is the server's own answer.
func (st *authzState) tokenRemedy(r *oauthclient.Reply) string {
	as := &st.authz.as
	e, _ := r.String("error")
	switch {
	case r.Status == http.StatusOK && e == "":
		return "the token endpoint answered without an access_token, which OAuth 2.1 3.2.3 requires of a successful token response"
	case e == "invalid_client" && as.secret.Value == "":
		return fmt.Sprintf("the authorization server wants the client %q to authenticate, and it has no secret (registered public, or its registration answered none): "+
			"set mcp_authorization.client_id to a confidential client registered with redirect_uri %s and mcp_authorization.client_secret_env to the variable holding its secret",
			as.clientID, st.redirectURI())
	case e == "invalid_client":
		return fmt.Sprintf("the authorization server refused the secret of the client %q, sent by %s: check mcp_authorization.client_secret_env, and the method the client was registered with", as.clientID, as.secret.Method())
	case e == "invalid_request":
		return "the authorization server found the token request itself malformed; its error_description says what it refused"
	}
	return st.remedyFor(e)
}

func (st *authzState) codeIssued(ctx context.Context) error {
	if err := st.approveAuthorization(ctx); err != nil {
		return err
	}
	if err := st.responseCarriesCode(); err != nil {
		return err
	}
	st.authz.as.code = st.authz.as.resp.params.Get("code")
	return nil
}

func (st *authzState) redeem(ctx context.Context, change func(url.Values)) error {
	as := &st.authz.as
	if err := st.needCode(); err != nil {
		return err
	}
	form := oauthclient.CodeForm(as.code, as.clientID, st.redirectURI(), as.verify, st.endpoint())
	if change != nil {
		change(form)
	}
	return st.tokenRequest(ctx, form)
}

// tokenRequest sends a token request of the scenario's client, with its
// secret when it has one.
func (st *authzState) tokenRequest(ctx context.Context, form url.Values) error {
	return st.sendToken(ctx, form, st.authz.as.secret)
}

// sendToken sends a token request authenticated with secret; the second
// client, a public one the run registered, has none. A throttled request is
// sent once more after a short Retry-After; one still throttled leaves the
// scenario not run before any step judges the answer: no rule of the token
// endpoint the pack checks is about its rate limit, and a limit is the
// server's right (RFC 6585 section 4).
func (st *authzState) sendToken(ctx context.Context, form url.Values, secret oauthclient.Secret) error {
	endpoint := st.authz.as.md.String("token_endpoint")
	r, err := st.obeyRetryAfter(ctx, "token request", func() (*oauthclient.Reply, error) {
		return secret.Token(ctx, st.Target.HTTP, endpoint, form)
	})
	if err != nil {
		return st.depart("an HTTP response from "+endpoint, "a response", err.Error())
	}
	if r.Throttled() {
		return st.skipThrottled(r, "token request at "+endpoint, "")
	}
	st.authz.as.token = r
	if tok, _ := r.String("access_token"); tok != "" {
		st.hide(tok)
	}
	return nil
}

// flowControl is the run's positive control of the authorization server's
// refusals: the valid authorization request of the client the scenarios use,
// approved and its code redeemed the valid way, once per run.
type flowControl struct {
	mu   sync.Mutex
	done bool
	// why is why the control could not be shown, "" when it was.
	why string
}

// controlFlow judges a refusal only after the same client, scope and
// redirect URI obtained a code and a token the valid way in the same run;
// when that cannot be shown, the refusal would mean nothing and the scenario
// is not run.
func (st *authzState) controlFlow(ctx context.Context) error {
	c := &st.Suite.control
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.done {
		var throttled bool
		c.why, throttled = st.runControl(ctx)
		// A control a rate limit stopped showed nothing of the server's
		// refusals: the next scenario that needs it runs it again.
		c.done = !throttled
	}
	if c.why != "" {
		return st.skip("the positive control failed, so a refusal would mean nothing: " + c.why)
	}
	return nil
}

// runControl runs the valid flow, leaving the scenario's own progress as it
// was, and says why it could not be completed ("" when it was), and whether
// a rate limit stopped it. Its not-run reasons go to the caller's reason,
// not to the scenario.
func (st *authzState) runControl(ctx context.Context) (string, bool) {
	saved := st.authz.as
	defer func() { st.authz.as = saved }()
	probe := &authzState{State: &State{Suite: st.Suite, pickleID: st.pickleID + "#control", vars: map[string]string{}}}
	probe.authz.as = saved
	if err := probe.codeIssued(ctx); err != nil {
		return probe.reasonOf(err), errors.Is(err, oauthclient.ErrThrottled)
	}
	if err := probe.redeemedForToken(ctx); err != nil {
		return probe.reasonOf(err), errors.Is(err, oauthclient.ErrThrottled)
	}
	return "", false
}

// reasonOf is what a step's error says: the reason it gave for not running,
// or the error itself.
func (st *authzState) reasonOf(err error) string {
	if r, ok := st.Notes.SkipReason(st.pickleID); ok {
		return r
	}
	return err.Error()
}

// requestURL is the run's valid authorization request as a URL.
func (st *authzState) requestURL() (string, error) {
	req, _ := st.request()
	return req.URL()
}
