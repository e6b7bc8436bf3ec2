package steps

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/wire"
)

// authzClient is the public client the suite registers once per run with
// the authorization server, so that a server with a registration limit is
// asked as few times as the pack allows.
type authzClient struct {
	mu       sync.Mutex
	clientID string
	// registeredAt is the registration endpoint that accepted clientID, the
	// run's own registration with the profile's redirect URI; "" when
	// clientID is not the run's (or there is none).
	registeredAt string
	// second is another client, for the rules that bind codes and refresh
	// tokens to the client they were issued to.
	second string
}

// asFlow is one scenario's progress through the authorization code flow.
type asFlow struct {
	md       *oauthclient.ServerMetadata
	clientID string
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
	// sent is the last authorization request the scenario changed itself.
	sent oauthclient.AuthorizationRequest
	// second is the second client, when the scenario has one.
	second string
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

func (st *State) chooseScope(ctx context.Context) string {
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

// registerAuthzServer binds the steps that drive the authorization server
// (discovery.3, security.2, 4 and 6, authorization.5 and 7.1).
func (st *State) registerAuthzServer(sc stepContext) {
	sc.Step(`^the authorization server's metadata, found at the well-known URIs in the specification's order$`, st.discoverAS)
	sc.Step(`^the authorization server's metadata, found the way a client finds it$`, st.foundAS)
	sc.Step(`^the authorization server metadata names an authorization_endpoint and a token_endpoint$`, st.asNamesEndpoints)
	sc.Step(`^the authorization server metadata's issuer is the identifier its well-known URI was built from$`, st.asIssuerMatches)
	sc.Step(`^the authorization server metadata's code_challenge_methods_supported includes "([^"]*)"$`, st.asMethodListed)
	sc.Step(`^the authorization server metadata's code_challenge_methods_supported does not include "([^"]*)"$`, st.asMethodNotListed)
	sc.Step(`^the authorization server metadata's client_id_metadata_document_supported is true$`, st.asCIMD)
	sc.Step(`^the authorization server metadata advertises authorization_response_iss_parameter_supported$`, st.asAdvertisesIss)

	sc.Step(`^a public client registered with the authorization server$`, st.publicClient)
	sc.Step(`^a public client registers at the advertised registration_endpoint$`, func(ctx context.Context) error { return st.registerAtAS(ctx, st.redirectURI()) })
	sc.Step(`^a public client registers at the advertised registration_endpoint with the redirect_uri "([^"]*)"$`, st.registerAtAS)
	sc.Step(`^the advertised registration_endpoint registers a public client with the profile's redirect_uri$`, st.registrationControl)
	sc.Step(`^the registration is refused$`, st.registrationRefusedAS)
	sc.Step(`^the registration answers 201 with a client_id$`, st.registrationAnswered)

	sc.Step(`^the client sends an authorization request without code_challenge$`, func(ctx context.Context) error {
		return st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.Challenge, r.Method = "", "" })
	})
	sc.Step(`^the client sends an authorization request the server must refuse: without code_challenge, else with a response_type it does not support$`, st.sendRefusable)
	sc.Step(`^the client sends an authorization request with code_challenge_method "([^"]*)"$`, func(ctx context.Context, m string) error {
		return st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.Method = m })
	})
	sc.Step(`^the client sends an authorization request whose redirect_uri extends the registered one's path$`, func(ctx context.Context) error {
		return st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.RedirectURI = extended(r.RedirectURI) })
	})
	sc.Step(`^the client's authorization request is approved$`, st.approveAuthorization)
	sc.Step(`^an authorization code issued to the client for an S256 code_challenge$`, st.codeIssued)
	sc.Step(`^the authorization server refuses the authorization request$`, st.authorizationRefused)
	sc.Step(`^the authorization server answers with the error response "([^"]*)"$`, st.authorizationErrorIs)
	sc.Step(`^the authorization server does not redirect to that redirect_uri$`, st.noRedirectToUnregistered)
	sc.Step(`^the authorization server answers by redirecting to the redirect_uri with an error$`, st.errorRedirect)
	sc.Step(`^the authorization response carries iss$`, st.responseCarriesIss)
	sc.Step(`^the authorization response carries a code$`, st.responseCarriesCode)
	sc.Step(`^when the authorization response carries iss, the metadata advertises authorization_response_iss_parameter_supported$`, st.issAdvertisedWhenSent)
	sc.Step(`^the authorization response's iss is the metadata's issuer$`, st.issIsIssuer)

	sc.Step(`^the client redeems the code again$`, func(ctx context.Context) error { return st.redeem(ctx, nil) })
	sc.Step(`^the client redeems the code without code_verifier$`, func(ctx context.Context) error {
		return st.redeem(ctx, func(f url.Values) { f.Del("code_verifier") })
	})
	sc.Step(`^the client redeems the code with another code_verifier$`, func(ctx context.Context) error {
		return st.redeem(ctx, func(f url.Values) { other, _ := oauthclient.PKCE(); f.Set("code_verifier", other) })
	})
	sc.Step(`^the client redeems the code with a redirect_uri that extends the registered one's path$`, func(ctx context.Context) error {
		return st.redeem(ctx, func(f url.Values) { f.Set("redirect_uri", extended(f.Get("redirect_uri"))) })
	})
	sc.Step(`^the client redeemed the code for a refresh token$`, st.redeemedForRefresh)
	sc.Step(`^the client refreshes with the refresh token$`, st.refreshOnce)
	sc.Step(`^the client refreshes with the same refresh token again$`, st.refreshOnce)
	sc.Step(`^the token endpoint issues an access token$`, st.tokenIssued)
	sc.Step(`^the token endpoint refuses the request$`, func() error { return st.tokenRefused("") })
	sc.Step(`^the token endpoint refuses the request with "([^"]*)"$`, st.tokenRefused)
	sc.Step(`^the token response carries a refresh token other than the one presented$`, st.refreshRotated)
	sc.Step(`^the client redeemed the code for a token$`, st.redeemedForToken)
	sc.Step(`^the client refreshed with the refresh token once$`, st.refreshedOnce)
	sc.Step(`^a refusal, if the token endpoint refuses, is "([^"]*)"$`, st.refusalIs)
	sc.Step(`^the token response carries token_type and Cache-Control no-store$`, st.tokenResponseSafe)
	sc.Step(`^the client's valid authorization request, made the same way, obtains a code and a token$`, st.controlFlow)
	sc.Step(`^the authorization response carries the state sent, exactly$`, st.stateEchoed)
	sc.Step(`^the client sends an authorization request with a client_id the server never issued$`, func(ctx context.Context) error {
		return st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.ClientID = "conform-unknown-client-7f3a9c" })
	})
	sc.Step(`^the authorization server does not redirect to the redirect_uri$`, st.noRedirectToUnregistered)
	sc.Step(`^the client's authorization request carries an Origin header$`, st.authorizationWithOrigin)
	sc.Step(`^the authorization endpoint does not allow that origin by CORS$`, st.noCORS)
	sc.Step(`^the authorization server metadata names response_types_supported$`, st.asResponseTypes)
	sc.Step(`^the authorization server metadata names every endpoint with https unless its host is loopback$`, st.asHTTPS)
	sc.Step(`^the registered redirect_uri is a loopback IP literal$`, st.loopbackRedirect)
	sc.Step(`^a second public client registered with the authorization server$`, st.secondClient)
	sc.Step(`^the second client redeems the code$`, func(ctx context.Context) error {
		as := &st.authz.as
		if as.code == "" {
			return fmt.Errorf("no authorization code yet")
		}
		return st.sendToken(ctx, oauthclient.CodeForm(as.code, as.second, st.redirectURI(), as.verify, st.endpoint()), st.secondSecret())
	})
	sc.Step(`^the second client refreshes with the refresh token$`, func(ctx context.Context) error {
		form := st.refreshForm()
		form.Set("client_id", st.authz.as.second)
		return st.sendToken(ctx, form, st.secondSecret())
	})
	sc.Step(`^the token response says how long the access token lives$`, st.tokenLifetime)
	sc.Step(`^the client refreshes asking for a scope it was never granted$`, st.refreshWider)
	sc.Step(`^the refresh is refused, or issues no scope it was never granted$`, st.refreshNotWider)
	sc.Step(`^the client sends its authorization request with the redirect_uri on another port$`, func(ctx context.Context) error {
		return st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.RedirectURI = otherPort(r.RedirectURI) })
	})
	sc.Step(`^the authorization server accepts that redirect_uri, redirecting to it$`, st.acceptsRedirect)
	st.registerAuthzServerRules(sc)
}

// extended is a redirect URI the client did not register: the registered
// one with its path extended, so scheme, host and port stay (a loopback
// redirect URI may change its port, OAuth 2.1 section 8.4.2).
func extended(redirectURI string) string {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return redirectURI + "/unregistered"
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/unregistered"
	return u.String()
}

func (st *State) redirectURI() string { return st.Target.Profile.MCPAuthorization.RedirectURI }

// issuerKey is the profile key that names the authorization server.
const issuerKey = "mcp_authorization.issuer"

// discoverAS finds the authorization server as a client would: the profile's
// issuer, else the first the protected resource metadata names; then its
// metadata in the order discovery.3 gives. Finding none is a departure from
// ASM-1, the only scenario that judges discovery: the others go through
// foundAS or usableAS. An issuer from the profile that cannot be reached is
// a mistake of the profile, so the scenario is not run, naming the key.
func (st *State) discoverAS(ctx context.Context) error {
	if st.authz.as.md != nil {
		return nil
	}
	issuer := st.Target.Profile.MCPAuthorization.Issuer
	fromProfile := issuer != ""
	if !fromProfile {
		r, err := st.MCP.Call(ctx, "", st.protected().Method, st.protectedParams(st.protected()))
		if err := st.took(r, err); err != nil {
			return err
		}
		if issuer, _, err = oauthclient.FollowChallenge(ctx, st.Target.HTTP, st.endpoint(), r.Status, r.Header.Values("WWW-Authenticate")); err != nil {
			return st.skip(err.Error() + " (PRM-1 and PRM-2 check that); set " + issuerKey + " to check an authorization server anyway")
		}
	}
	md, tried, err := oauthclient.DiscoverServer(ctx, st.Target.HTTP, issuer)
	if err != nil {
		if fromProfile {
			return st.skip(fmt.Sprintf("the authorization server %s names could not be reached: %v; check %s", issuerKey, err, issuerKey))
		}
		return st.depart("authorization server metadata of "+issuer, "an HTTP response", err.Error())
	}
	if md == nil {
		var seen []string
		var exs []wire.Exchange
		for _, r := range tried {
			seen = append(seen, fmt.Sprintf("%s answered HTTP %d", r.Exchange.URL, r.Status))
			exs = append(exs, r.Exchange)
		}
		where := "a well-known URI of " + issuer
		if fromProfile {
			where += " (" + issuerKey + ")"
		}
		return st.depart("authorization server metadata (discovery.3)", "RFC 8414 or OpenID Connect Discovery metadata at "+where,
			strings.Join(seen, "; "), exs...)
	}
	st.authz.as.md = md
	return nil
}

// foundAS is the authorization server metadata a scenario other than ASM-1
// judges: when there is none, the scenario is not run, since ASM-1 is what
// fails for it; when the issuer came from the profile, the reason names the
// key, which may be what is wrong.
func (st *State) foundAS(ctx context.Context) error {
	err := st.discoverAS(ctx)
	var d *outcome.Departure
	if !errors.As(err, &d) {
		return err
	}
	reason := "no authorization server metadata to judge (ASM-1 checks discovery): " + d.Actual
	if st.Target.Profile.MCPAuthorization.Issuer != "" {
		reason += "; the issuer is " + issuerKey + "'s, check it"
	}
	return st.skip(reason)
}

// usableAS is the authorization server a flow can be run against: found,
// and naming the endpoints of the code flow. When it is not, the scenario is
// not run: ASM-1 and ASM-3 are what fail for it.
func (st *State) usableAS(ctx context.Context) error {
	if err := st.foundAS(ctx); err != nil {
		return err
	}
	md := st.authz.as.md
	for _, k := range []string{"authorization_endpoint", "token_endpoint"} {
		if u, err := url.Parse(md.String(k)); err != nil || u.Scheme == "" || u.Host == "" {
			return st.skip("the authorization server metadata names no absolute " + k + " (ASM-3 checks that)")
		}
	}
	return nil
}

func (st *State) needAS() (*oauthclient.ServerMetadata, error) {
	if st.authz.as.md == nil {
		return nil, fmt.Errorf("no authorization server metadata yet: the scenario must find it first")
	}
	return st.authz.as.md, nil
}

func (st *State) asNamesEndpoints() error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	var missing []string
	for _, k := range []string{"authorization_endpoint", "token_endpoint"} {
		if u, err := url.Parse(md.String(k)); err != nil || u.Scheme == "" || u.Host == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return st.depart("authorization server metadata at "+md.URL+" (RFC 8414 2)", "an absolute "+strings.Join(missing, " and "), "none", md.Reply.Exchange)
	}
	return nil
}

func (st *State) asIssuerMatches() error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	if got := md.String("issuer"); got != md.Issuer {
		return st.depart("issuer of the metadata at "+md.URL+" (RFC 8414 3.3)", fmt.Sprintf("%q", md.Issuer), fmt.Sprintf("%q", got), md.Reply.Exchange)
	}
	return nil
}

func (st *State) asMethodListed(method string) error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	if !slices.Contains(md.Strings("code_challenge_methods_supported"), method) {
		return st.depart("code_challenge_methods_supported (security.4)", "a list including "+method,
			wire.JSONText(md.Reply.JSON["code_challenge_methods_supported"]), md.Reply.Exchange)
	}
	return nil
}

func (st *State) asMethodNotListed(method string) error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	if slices.Contains(md.Strings("code_challenge_methods_supported"), method) {
		return st.skip("the metadata lists " + method + " among code_challenge_methods_supported, and OAuth 2.1 lets a server that lists it accept it")
	}
	return nil
}

func (st *State) asCIMD() error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	if !md.Bool("client_id_metadata_document_supported") {
		return st.depart("client_id_metadata_document_supported (authorization.3)", "true", wire.JSONText(md.Reply.JSON["client_id_metadata_document_supported"]), md.Reply.Exchange)
	}
	return nil
}

func (st *State) asAdvertisesIss(ctx context.Context) error {
	if err := st.usableAS(ctx); err != nil {
		return err
	}
	if !st.authz.as.md.Bool("authorization_response_iss_parameter_supported") {
		return st.skip("the metadata does not advertise authorization_response_iss_parameter_supported, so iss is not promised")
	}
	return nil
}

// publicClient is the client the scenario uses: the profile's, else the one
// registered earlier in the run, else a new registration.
func (st *State) publicClient(ctx context.Context) error {
	if err := st.usableAS(ctx); err != nil {
		return err
	}
	st.authz.as.scope = st.chooseScope(ctx)
	if id := st.Target.Profile.MCPAuthorization.ClientID; id != "" {
		st.authz.as.clientID = id
		return nil
	}
	st.authzClient.mu.Lock()
	defer st.authzClient.mu.Unlock()
	st.adoptTokensClient()
	if st.authzClient.clientID != "" {
		st.authz.as.clientID = st.authzClient.clientID
		return nil
	}
	endpoint := st.authz.as.md.String("registration_endpoint")
	if endpoint == "" {
		return st.skip("the authorization server names no registration_endpoint: set mcp_authorization.client_id to a public client registered with redirect_uri " + st.redirectURI())
	}
	r, err := st.obeyRetryAfter(ctx, "registration", func() (*oauthclient.Reply, error) {
		return oauthclient.RegisterCodeClient(ctx, st.Target.HTTP, endpoint, st.redirectURI())
	})
	if err != nil {
		return st.skip(fmt.Sprintf("registration at %s failed: %v (REG-2 checks registration); set mcp_authorization.client_id", endpoint, err))
	}
	id, _ := r.String("client_id")
	if throttled(r) {
		return st.skipThrottled(r, "registration at "+endpoint, "set mcp_authorization.client_id to a client registered before")
	}
	if r.Status/100 != 2 || id == "" {
		return st.skip(fmt.Sprintf("registration at %s answered HTTP %d without a client_id (REG-2 checks registration); set mcp_authorization.client_id", endpoint, r.Status))
	}
	st.authzClient.clientID, st.authzClient.registeredAt = id, endpoint
	st.authz.as.clientID = id
	return nil
}

func (st *State) registerAtAS(ctx context.Context, redirectURI string) error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	endpoint := md.String("registration_endpoint")
	if endpoint == "" {
		return st.skip("the metadata names no registration_endpoint, so dynamic registration is not offered")
	}
	r, err := st.obeyRetryAfter(ctx, "registration", func() (*oauthclient.Reply, error) {
		return oauthclient.RegisterCodeClient(ctx, st.Target.HTTP, endpoint, redirectURI)
	})
	if err != nil {
		return st.depart("registration at "+endpoint, "an HTTP response", err.Error())
	}
	st.oauth = r
	st.hearOAuth(r)
	return nil
}

// registrationReply is the registration the scenario sent, unless a rate
// limit answered it: then the scenario is not run (RFC 6585 section 4).
func (st *State) registrationReply() (*oauthclient.Reply, error) {
	r := st.oauth
	if r == nil {
		return nil, fmt.Errorf("no registration sent yet")
	}
	if throttled(r) {
		return nil, st.skipThrottled(r, "registration", "")
	}
	return r, nil
}

func (st *State) registrationAnswered() error {
	r, err := st.registrationReply()
	if err != nil {
		return err
	}
	errCode, _ := r.String("error")
	switch {
	case r.Status == http.StatusUnauthorized || r.Status == http.StatusForbidden:
		// RFC 7591 3 lets the endpoint be protected (an initial access token).
		return st.skip(fmt.Sprintf("the registration endpoint answered HTTP %d: it is protected, as RFC 7591 3 allows; set mcp_authorization.client_id to a registered public client", r.Status))
	case r.Status == http.StatusBadRequest && errCode != "":
		// RFC 7591 3.2.2 lets the server refuse a registration with an error.
		return st.skip(fmt.Sprintf("the authorization server refused the registration as RFC 7591 3.2.2 allows (%s); set mcp_authorization.client_id to a registered public client", describeOAuth(r)))
	}
	if id, _ := r.String("client_id"); r.Status != http.StatusCreated || id == "" {
		return st.depart("registration (RFC 7591 3.2.1, 3.2.2)", "HTTP 201 with a client_id, or a 400 with an RFC 7591 error", describeOAuth(r), r.Exchange)
	}
	return nil
}

// stateSent is the state of every authorization request: characters that
// need encoding in a query, so that echoing it "exactly" (OAuth 2.1 4.1.2)
// is seen, and only visible ASCII and space, the syntax RFC 6749 (appendix
// A.5, VSCHAR) gives state.
const stateSent = "conform state/+&=%~"

// request is a valid authorization request of the scenario's client.
func (st *State) request() (oauthclient.AuthorizationRequest, string) {
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
func (st *State) sendAuthorization(ctx context.Context, change func(*oauthclient.AuthorizationRequest)) error {
	req, _ := st.request()
	change(&req)
	st.authz.as.sent = req
	u, err := req.URL()
	if err != nil {
		return err
	}
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
func (st *State) openAuthorization(ctx context.Context, u, origin string) (*authorizeAnswer, error) {
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
// follows no redirect.
func (st *State) askAuthorization(hreq *http.Request) (*authorizeAnswer, error) {
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

func (st *State) needAnswer() (*authorizeAnswer, error) {
	if st.authz.as.resp == nil {
		return nil, fmt.Errorf("no authorization request sent yet")
	}
	return st.authz.as.resp, nil
}

func (a *authorizeAnswer) describe() string {
	switch {
	case a.redirected:
		return "a redirect to " + a.location
	case a.location != "":
		return fmt.Sprintf("HTTP %d to %s", a.status, a.location)
	}
	return fmt.Sprintf("HTTP %d", a.status)
}

// authorizationRefused: a refusal is a redirect to the redirect_uri with
// error (OAuth 2.1 section 4.1.2.1), or an error status; a code is an
// acceptance. A page the harness cannot follow without the approval command
// leaves the scenario not run.
func (st *State) authorizationRefused() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	switch {
	case a.redirected && a.params.Get("code") != "":
		return st.depart("authorization response", "a refusal (error=invalid_request)", "a code: "+a.location, a.ex)
	case a.redirected && a.params.Get("error") != "":
		return nil
	case a.status >= 400 && a.status < 500:
		return nil
	case a.approvalErr != nil:
		// Whether the server refused after a sign-in or the command failed
		// on its own cannot be told apart.
		return st.skip(fmt.Sprintf("the authorization endpoint answered %s and the approval command (oauth.authorization_approval_command) failed: %v", a.describe(), a.approvalErr))
	case !a.redirected && st.Target.ApproveAuthorization == nil && (a.status == http.StatusOK || a.status/100 == 3):
		return st.skip(fmt.Sprintf("the authorization endpoint answered %s, which may be a consent page: set oauth.authorization_approval_command so the suite can see where it leads", a.describe()))
	}
	return st.depart("authorization response", "a refusal: a redirect to the redirect_uri with error, or a 4xx", a.describe(), a.ex)
}

func (st *State) noRedirectToUnregistered() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	if a.redirected {
		return st.depart("authorization response (security.6)", "no redirect to the unregistered redirect_uri", a.describe(), a.ex)
	}
	if (a.status == http.StatusOK || a.status/100 == 3) && st.Target.ApproveAuthorization == nil {
		return st.skip(fmt.Sprintf("the authorization endpoint answered %s, which may be a consent page leading to the redirect_uri: set oauth.authorization_approval_command so the suite can see where it leads", a.describe()))
	}
	return nil
}

func (st *State) errorRedirect() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	if !a.redirected || a.params.Get("error") == "" {
		return st.skip(fmt.Sprintf("the authorization server answered %s, not an error redirect, so there is no authorization error response to read (PKCE-2 judges the refusal)", a.describe()))
	}
	return nil
}

// unsupportedResponseType is a response_type no authorization server
// supports, which it refuses with unsupported_response_type on the
// redirect (OAuth 2.1 4.1.2.1) once client_id and redirect_uri are valid.
const unsupportedResponseType = "conform_unsupported"

// sendRefusable sends the request whose error response the scenarios about
// error responses read (iss, state): without code_challenge, which a
// server refuses at once when it holds public clients to PKCE there; a
// server that checks PKCE only at the token endpoint issues a code
// instead (PKCE-2 judges that), and then a response_type it cannot
// support stands in.
func (st *State) sendRefusable(ctx context.Context) error {
	if err := st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.Challenge, r.Method = "", "" }); err != nil {
		return err
	}
	if a := st.authz.as.resp; a.redirected && a.params.Get("error") != "" {
		return nil
	}
	return st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.ResponseType = unsupportedResponseType })
}

func (st *State) responseCarriesIss() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	if a.params.Get("iss") == "" {
		return st.depart("authorization response (RFC 9207 2)", "an iss parameter", a.location, a.ex)
	}
	return nil
}

func (st *State) responseCarriesCode() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	if a.params.Get("code") == "" {
		return st.depart("authorization response (OAuth 2.1 4.1.2)", "a code for the approved request", a.describe(), a.ex)
	}
	return nil
}

func (st *State) issAdvertisedWhenSent() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	if a.params.Get("iss") == "" {
		return st.skip("the authorization response carries no iss, so nothing need be advertised (ISS-3 asks for iss)")
	}
	if md := st.authz.as.md; !md.Bool("authorization_response_iss_parameter_supported") {
		return st.depart("authorization_response_iss_parameter_supported (RFC 9207 2.3)", "true, since responses carry iss",
			wire.JSONText(md.Reply.JSON["authorization_response_iss_parameter_supported"]), md.Reply.Exchange)
	}
	return nil
}

func (st *State) issIsIssuer() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	want := st.authz.as.md.String("issuer")
	if got := a.params.Get("iss"); got != want {
		return st.depart("iss of the authorization response (RFC 9207 2)", fmt.Sprintf("%q, the metadata's issuer", want), fmt.Sprintf("%q in %s", got, a.location), a.ex)
	}
	return nil
}

// approveAuthorization sends a valid request through the approval command.
// What the command hands back is the person's decision, not the server's:
// when it is no redirect to the redirect_uri, or a refusal by the person
// (access_denied, OAuth 2.1 section 4.1.2.1), nothing was approved, and the
// scenario is not run, quoting what came back.
func (st *State) approveAuthorization(ctx context.Context) error {
	if st.Target.ApproveAuthorization == nil {
		return st.skip(st.Target.Lacks("authorization-approval"))
	}
	req, verifier := st.request()
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
func (st *State) remedyFor(code string) string {
	if md := st.authz.as.md; md != nil && st.Target.Profile.MCPAuthorization.ClientSecret() == "" {
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

// redeemedForToken is the valid redemption a scenario builds on: when it
// fails, the flow could not be set up and the scenario is not run.
func (st *State) redeemedForToken(ctx context.Context) error {
	if err := st.redeem(ctx, nil); err != nil {
		return err
	}
	return st.setUp(st.authz.as.token, "redeeming the code the valid way")
}

// setUp leaves the scenario not run when a token request the scenario
// needed to succeed did not: it quotes the answer and what may mend it.
func (st *State) setUp(r *oauthclient.Reply, what string) error {
	if tok, _ := r.String("access_token"); r.Status == http.StatusOK && tok != "" {
		return nil
	}
	e, _ := r.String("error")
	return st.skip(fmt.Sprintf("%s failed (%s), so the flow this check needs could not be set up; %s", what, describeOAuth(r), st.remedyFor(e)))
}

// refreshedOnce is the first refresh a replay check builds on.
func (st *State) refreshedOnce(ctx context.Context) error {
	if err := st.refreshOnce(ctx); err != nil {
		return err
	}
	return st.setUp(st.authz.as.token, "the first refresh")
}

func (st *State) codeIssued(ctx context.Context) error {
	if err := st.approveAuthorization(ctx); err != nil {
		return err
	}
	if err := st.responseCarriesCode(); err != nil {
		return err
	}
	st.authz.as.code = st.authz.as.resp.params.Get("code")
	return nil
}

func (st *State) redeem(ctx context.Context, change func(url.Values)) error {
	as := &st.authz.as
	if as.code == "" {
		return fmt.Errorf("no authorization code yet")
	}
	form := oauthclient.CodeForm(as.code, as.clientID, st.redirectURI(), as.verify, st.endpoint())
	if change != nil {
		change(form)
	}
	return st.tokenRequest(ctx, form)
}

// tokenRequest sends a token request of the scenario's client, with the
// profile's secret when it gives one.
func (st *State) tokenRequest(ctx context.Context, form url.Values) error {
	return st.sendToken(ctx, form, oauthclient.SecretFor(st.authz.as.md, st.Target.Profile.MCPAuthorization.ClientSecret()))
}

// sendToken sends a token request authenticated with secret; the second
// client, a public one the run registered, has none.
func (st *State) sendToken(ctx context.Context, form url.Values, secret oauthclient.Secret) error {
	endpoint := st.authz.as.md.String("token_endpoint")
	r, err := secret.Token(ctx, st.Target.HTTP, endpoint, form)
	if err != nil {
		return st.depart("an HTTP response from "+endpoint, "a response", err.Error())
	}
	st.authz.as.token = r
	if tok, _ := r.String("access_token"); tok != "" {
		st.hide(tok)
	}
	return nil
}

func (st *State) redeemedForRefresh(ctx context.Context) error {
	if err := st.redeemedForToken(ctx); err != nil {
		return err
	}
	rt, _ := st.authz.as.token.String("refresh_token")
	if rt == "" {
		return st.skip("the authorization server issued no refresh token; MCP leaves that to it, so there is nothing to rotate")
	}
	st.authz.as.refresh = rt
	return nil
}

func (st *State) refreshOnce(ctx context.Context) error {
	return st.tokenRequest(ctx, st.refreshForm())
}

func (st *State) tokenIssued() error {
	r := st.authz.as.token
	if r == nil {
		return fmt.Errorf("no token request sent yet")
	}
	if tok, _ := r.String("access_token"); r.Status != http.StatusOK || tok == "" {
		return st.depart("token response (OAuth 2.1 3.2.3)", "HTTP 200 with an access_token", describeOAuth(r), r.Exchange)
	}
	return nil
}

func (st *State) tokenRefused(code string) error {
	r := st.authz.as.token
	if r == nil {
		return fmt.Errorf("no token request sent yet")
	}
	got, _ := r.String("error")
	want := "an error response (HTTP 400 with error)"
	if code != "" {
		want = fmt.Sprintf("HTTP 400 with error %q", code)
	}
	if got == "invalid_client" {
		// The client, not the request under test, was refused: a set-up
		// the profile may mend (OAuth 2.1 3.2.4, client authentication).
		return st.skip(fmt.Sprintf("the token endpoint refused the client itself (%s), not the request under test; %s", describeOAuth(r), st.remedyFor(got)))
	}
	if r.Status < 400 || r.Status >= 500 || got == "" || (code != "" && got != code) {
		return st.depart("token response (OAuth 2.1 3.2.4)", want, describeOAuth(r), r.Exchange)
	}
	return nil
}

// refusalIs judges only the error of a refusal: a server may redeem the code
// (OAuth 2.1 10.2 removed redirect_uri from the token request), but one that
// refuses does so with the code named.
func (st *State) refusalIs(code string) error {
	r := st.authz.as.token
	if r == nil {
		return fmt.Errorf("no token request sent yet")
	}
	if r.Status/100 == 2 {
		return nil
	}
	return st.tokenRefused(code)
}

// tokenResponseSafe: the token response names its token_type (REQUIRED)
// and carries Cache-Control: no-store (OAuth 2.1 3.2.3: "The authorization
// server MUST include the HTTP Cache-Control response header field ... with
// a value of no-store in any response containing tokens").
func (st *State) tokenResponseSafe() error {
	r := st.authz.as.token
	if r == nil {
		return fmt.Errorf("no token request sent yet")
	}
	var missing []string
	if tt, _ := r.String("token_type"); tt == "" {
		missing = append(missing, "token_type")
	}
	noStore := false
	for _, v := range r.Header.Values("Cache-Control") {
		for d := range strings.SplitSeq(v, ",") {
			noStore = noStore || strings.EqualFold(strings.TrimSpace(d), "no-store")
		}
	}
	if !noStore {
		missing = append(missing, "Cache-Control: no-store")
	}
	if len(missing) > 0 {
		return st.depart("token response (OAuth 2.1 3.2.3)", "token_type and Cache-Control: no-store", "no "+strings.Join(missing, ", no "), r.Exchange)
	}
	return nil
}

func (st *State) refreshRotated() error {
	r := st.authz.as.token
	next, _ := r.String("refresh_token")
	if next == "" || next == st.authz.as.refresh {
		return st.depart("refresh token rotation (OAuth 2.1 4.3.1)", "a new refresh_token", describeOAuth(r), r.Exchange)
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
func (st *State) controlFlow(ctx context.Context) error {
	c := &st.Suite.control
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.done {
		c.why = st.runControl(ctx)
		c.done = true
	}
	if c.why != "" {
		return st.skip("the positive control failed, so a refusal would mean nothing: " + c.why)
	}
	return nil
}

// runControl runs the valid flow, leaving the scenario's own progress as it
// was, and says why it could not be completed ("" when it was). Its
// not-run reasons go to the caller's reason, not to the scenario.
func (st *State) runControl(ctx context.Context) string {
	saved := st.authz.as
	defer func() { st.authz.as = saved }()
	probe := &State{Suite: st.Suite, pickleID: st.pickleID + "#control", vars: map[string]string{}}
	probe.authz.as = saved
	if err := probe.codeIssued(ctx); err != nil {
		return probe.reasonOf(err)
	}
	if err := probe.redeemedForToken(ctx); err != nil {
		return probe.reasonOf(err)
	}
	return ""
}

// reasonOf is what a step's error says: the reason it gave for not running,
// or the error itself.
func (st *State) reasonOf(err error) string {
	if r, ok := st.Notes.SkipReason(st.pickleID); ok {
		return r
	}
	return err.Error()
}

// stateEchoed: state is "REQUIRED if the state parameter was present in the
// client authorization request. The exact value received from the client"
// (OAuth 2.1 4.1.2 and 4.1.2.1).
func (st *State) stateEchoed() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	if got := a.params["state"]; len(got) != 1 || got[0] != stateSent {
		return st.depart("state of the authorization response (OAuth 2.1 4.1.2)", fmt.Sprintf("%q, exactly as sent", stateSent), fmt.Sprintf("%q in %s", got, a.location), a.ex)
	}
	return nil
}

// requestURL is the run's valid authorization request as a URL.
func (st *State) requestURL() (string, error) {
	req, _ := st.request()
	return req.URL()
}

// authorizationWithOrigin sends the valid authorization request as a
// script on another origin would, with an Origin header.
func (st *State) authorizationWithOrigin(ctx context.Context) error {
	u, err := st.requestURL()
	if err != nil {
		return err
	}
	a, err := st.openAuthorization(ctx, u, corsOrigin)
	if err != nil {
		return err
	}
	st.authz.as.resp = a
	return nil
}

// corsOrigin is the origin of a script the authorization endpoint must not
// serve.
const corsOrigin = "https://cors-probe.conform.invalid"

// noCORS: "Cross-Origin Resource Sharing MUST NOT be supported at the
// Authorization Endpoint" (OAuth 2.1 3.1).
func (st *State) noCORS() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	for _, v := range a.allowOrigin {
		if v := strings.TrimSpace(v); v == "*" || v == corsOrigin {
			return st.depart("Access-Control-Allow-Origin of the authorization endpoint (OAuth 2.1 3.1)", "no CORS for "+corsOrigin, v, a.ex)
		}
	}
	return nil
}

// asResponseTypes: response_types_supported is REQUIRED in authorization
// server metadata (RFC 8414 section 2).
func (st *State) asResponseTypes() error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	if len(md.Strings("response_types_supported")) == 0 {
		return st.depart("authorization server metadata at "+md.URL+" (RFC 8414 2)", "response_types_supported, a list of the response types it supports",
			wire.JSONText(md.Reply.JSON["response_types_supported"]), md.Reply.Exchange)
	}
	return nil
}

// authorizationErrorIs: "If the server does not support the requested
// code_challenge_method transformation, the authorization endpoint MUST
// return the authorization error response with error value set to
// invalid_request" (OAuth 2.1 4.1.2.1). A code issued instead is redeemed
// with the challenge as its verifier: refused, the method was ignored, a
// departure; served, the server supports plain, which OAuth 2.1 4.1.1 lets
// a client learn of out of band, so the sentence does not bind it and the
// scenario is not run, its metadata's silence notwithstanding.
func (st *State) authorizationErrorIs(ctx context.Context, want string) error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	const check = "authorization error response (OAuth 2.1 4.1.2.1)"
	expected := fmt.Sprintf("a redirect to the redirect_uri with error=%s", want)
	switch {
	case a.redirected && a.params.Get("error") == want:
		return nil
	case a.redirected && a.params.Get("error") != "":
		return st.depart(check, expected, a.describe(), a.ex)
	case a.redirected && a.params.Get("code") != "":
		as := &st.authz.as
		form := oauthclient.CodeForm(a.params.Get("code"), as.clientID, as.sent.RedirectURI, as.sent.Challenge, st.endpoint())
		how := "the code was not redeemed"
		secret := oauthclient.SecretFor(st.authz.as.md, st.Target.Profile.MCPAuthorization.ClientSecret())
		if r, err := secret.Token(ctx, st.Target.HTTP, st.authz.as.md.String("token_endpoint"), form); err == nil {
			if tok, _ := r.String("access_token"); r.Status == http.StatusOK && tok != "" {
				return st.skip("the authorization server supports plain, though its code_challenge_methods_supported does not list it: " +
					"the code it issued was redeemed with code_verifier equal to the challenge, and OAuth 2.1 4.1.2.1 asks invalid_request only of a server that does not support the method")
			}
			how = fmt.Sprintf("its code was refused with code_verifier equal to the challenge (%s), so the method was ignored", describeOAuth(r))
		}
		return st.depart(check, expected, "a code: "+a.location+"; "+how, a.ex)
	case a.approvalErr != nil:
		return st.skip(fmt.Sprintf("the authorization endpoint answered %s and the approval command (oauth.authorization_approval_command) failed: %v", a.describe(), a.approvalErr))
	case !a.redirected && st.Target.ApproveAuthorization == nil && (a.status == http.StatusOK || a.status/100 == 3):
		return st.skip(fmt.Sprintf("the authorization endpoint answered %s, which may be a consent page: set oauth.authorization_approval_command so the suite can see where it leads", a.describe()))
	}
	return st.depart(check, expected, a.describe(), a.ex)
}

// loopbackRedirect is LOOPBACK-1's premise: the rule is about loopback IP
// redirect URIs (OAuth 2.1 8.4.2, RFC 8252 7.3).
func (st *State) loopbackRedirect() error {
	u, err := url.Parse(st.redirectURI())
	if err == nil && u.Scheme == "http" {
		if ip := net.ParseIP(u.Hostname()); ip != nil && ip.IsLoopback() {
			return nil
		}
	}
	return st.skip("mcp_authorization.redirect_uri " + st.redirectURI() + " is no loopback IP redirect URI (http://127.0.0.1 or http://[::1]), which this rule is about")
}

// otherPort is the redirect URI on another port than the registered one's.
func otherPort(redirectURI string) string {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return redirectURI
	}
	port := "49152"
	if u.Port() == port {
		port = "49153"
	}
	u.Host = net.JoinHostPort(u.Hostname(), port)
	return u.String()
}

// acceptsRedirect: "The authorization server MUST allow any port to be
// specified at the time of the request for loopback IP redirect URIs"
// (OAuth 2.1 8.4.2; RFC 8252 7.3), the one exception to exact matching
// (OAuth 2.1 4.1.1).
func (st *State) acceptsRedirect() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	const check = "loopback redirect URI on another port (OAuth 2.1 4.1.1, 8.4.2)"
	switch {
	case a.redirected:
		// A server never redirects to a redirect URI it does not accept
		// (4.1.2.1), so any redirect there, a refusal for another reason
		// included, accepted it.
		return nil
	case a.approvalErr != nil:
		return st.skip(fmt.Sprintf("the authorization endpoint answered %s and the approval command (oauth.authorization_approval_command) failed: %v; "+
			"whether the server refused the port cannot be told from that", a.describe(), a.approvalErr))
	case !a.redirected && st.Target.ApproveAuthorization == nil && (a.status == http.StatusOK || a.status/100 == 3):
		return st.skip(fmt.Sprintf("the authorization endpoint answered %s, which may be a consent page: set oauth.authorization_approval_command so the suite can see where it leads", a.describe()))
	}
	return st.depart(check, "a redirect to the redirect_uri on the other port", a.describe(), a.ex)
}

// secondClient registers, once per run, a second public client with the
// same redirect URI: a code or a refresh token of the first is not its own.
func (st *State) secondClient(ctx context.Context) error {
	if id := st.Target.Profile.MCPAuthorization.SecondClientID; id != "" {
		st.authz.as.second = id
		return nil
	}
	st.authzClient.mu.Lock()
	defer st.authzClient.mu.Unlock()
	if st.authzClient.second != "" {
		st.authz.as.second = st.authzClient.second
		return nil
	}
	endpoint := st.authz.as.md.String("registration_endpoint")
	if endpoint == "" {
		return st.skip("the authorization server names no registration_endpoint, so there is no second client to present another client's code or refresh token; " +
			"set mcp_authorization.second_client_id to another client registered with the same redirect_uri")
	}
	r, err := st.obeyRetryAfter(ctx, "registration", func() (*oauthclient.Reply, error) {
		return oauthclient.RegisterCodeClient(ctx, st.Target.HTTP, endpoint, st.redirectURI())
	})
	if err != nil {
		return st.skip(fmt.Sprintf("registering a second client at %s failed: %v", endpoint, err))
	}
	if throttled(r) {
		return st.skipThrottled(r, "registration of a second client at "+endpoint, "")
	}
	id, _ := r.String("client_id")
	if r.Status/100 != 2 || id == "" {
		return st.skip(fmt.Sprintf("registering a second client at %s answered %s (REG-2 checks registration)", endpoint, describeOAuth(r)))
	}
	st.authzClient.second = id
	st.authz.as.second = id
	return nil
}

// secondSecret is how the second client authenticates: with its secret
// when the profile gives one, else as a public client.
func (st *State) secondSecret() oauthclient.Secret {
	if secret := st.Target.Profile.MCPAuthorization.SecondClientSecret(); secret != "" {
		return oauthclient.SecretFor(st.authz.as.md, secret)
	}
	return oauthclient.Secret{}
}

// tokenLifetime: "Authorization servers SHOULD issue short-lived access
// tokens" (security.2); the only lifetime a client can see is expires_in
// (OAuth 2.1 3.2.3, RECOMMENDED).
func (st *State) tokenLifetime() error {
	r := st.authz.as.token
	if r == nil {
		return fmt.Errorf("no token request sent yet")
	}
	if n, ok := r.JSON["expires_in"].(float64); !ok || n <= 0 {
		return st.depart("token response (security.2, OAuth 2.1 3.2.3)", "expires_in, the access token's lifetime in seconds", describeOAuth(r), r.Exchange)
	}
	return nil
}

// adoptTokensClient makes the client the run registered for its tokens,
// before the scenarios, the run's own client when it was registered with
// this authorization server: a server with a registration limit is asked
// once less. The caller holds st.authzClient.mu.
func (st *State) adoptTokensClient() {
	if st.authzClient.clientID != "" {
		return
	}
	md := st.authz.as.md
	if id := st.Target.Tokens.Client.At(md.String("issuer")); id != "" {
		st.authzClient.clientID, st.authzClient.registeredAt = id, md.String("registration_endpoint")
	}
}

// registrationControl is the positive control of a refused registration:
// the same registration with the profile's redirect URI is accepted. The
// run's own client, registered with that very body at the same endpoint, is
// that control already; when there is none yet, the control's client becomes
// it. Either way a server with a registration limit is asked once.
func (st *State) registrationControl(ctx context.Context) error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	endpoint := md.String("registration_endpoint")
	st.authzClient.mu.Lock()
	st.adoptTokensClient()
	accepted := st.authzClient.registeredAt != "" && st.authzClient.registeredAt == endpoint
	st.authzClient.mu.Unlock()
	if accepted {
		st.oauth, st.last = nil, nil
		return nil
	}
	if err := st.registerAtAS(ctx, st.redirectURI()); err != nil {
		return err
	}
	r, err := st.registrationReply()
	if err != nil {
		return err
	}
	id, _ := r.String("client_id")
	if r.Status/100 != 2 || id == "" {
		return st.skip(fmt.Sprintf("the control failed: the registration with redirect_uri %s answered %s, so a refusal would mean nothing (REG-2 judges it)",
			st.redirectURI(), describeOAuth(r)))
	}
	st.authzClient.mu.Lock()
	if st.authzClient.clientID == "" {
		st.authzClient.clientID, st.authzClient.registeredAt = id, endpoint
	}
	st.authzClient.mu.Unlock()
	st.oauth, st.last = nil, nil
	return nil
}

// registrationRefusedAS: the registration is answered with an error (RFC 7591
// 3.2.2), or a 4xx; a client_id is an acceptance.
func (st *State) registrationRefusedAS() error {
	r, err := st.registrationReply()
	if err != nil {
		return err
	}
	if id, _ := r.String("client_id"); r.Status/100 == 2 && id != "" {
		return st.depart("registration (security.3, RFC 7591 3.2.2)", "a refusal: HTTP 400 with an RFC 7591 error", describeOAuth(r), r.Exchange)
	}
	if r.Status/100 != 4 {
		return st.depart("registration (RFC 7591 3.2.2)", "a refusal: HTTP 400 with an RFC 7591 error", describeOAuth(r), r.Exchange)
	}
	return nil
}

// asHTTPS is the part of "All authorization server endpoints MUST be served
// over HTTPS" (security.3) a client sees without TLS: no http URL for the
// issuer or an endpoint on a host that is not loopback. Loopback hosts are
// where test deployments live; what they use is noted, not judged.
func (st *State) asHTTPS() error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	var plain, loopback []string
	for _, k := range []string{"issuer", "authorization_endpoint", "token_endpoint", "registration_endpoint", "jwks_uri", "introspection_endpoint", "revocation_endpoint"} {
		u, err := url.Parse(md.String(k))
		if err != nil || u.Scheme != "http" {
			continue
		}
		if oauthclient.LoopbackHost(u.Hostname()) {
			loopback = append(loopback, k)
		} else {
			plain = append(plain, fmt.Sprintf("%s %s", k, u))
		}
	}
	if len(plain) > 0 {
		return st.depart("authorization server metadata at "+md.URL+" (security.3, OAuth 2.1 1.5)", "https for every endpoint on a host that is not loopback",
			strings.Join(plain, ", "), md.Reply.Exchange)
	}
	if len(loopback) > 0 {
		st.Notes.Observe(st.pickleID, "plain http on a loopback host, where the rule is not judged: "+strings.Join(loopback, ", "))
	}
	return nil
}

// widerScope is a scope no authorization server granted the suite.
const widerScope = "conform:never-granted"

// refreshWider asks, in a refresh, for the scope originally granted and one
// more (OAuth 2.1 4.3.1: "The requested scope MUST NOT include any scope not
// originally granted by the resource owner").
func (st *State) refreshWider(ctx context.Context) error {
	form := st.refreshForm()
	form.Set("scope", strings.TrimSpace(st.grantedScope()+" "+widerScope))
	return st.tokenRequest(ctx, form)
}

// refreshNotWider: refresh tokens "MUST be bound to the scope and resource
// servers as consented by the resource owner" (OAuth 2.1 3.2.3). A refusal
// (invalid_scope is "exceeds the scope granted by the resource owner",
// 3.2.4) keeps the binding; so does a token whose scope leaves the new one
// out. A token response without scope says it is "identical to the scope
// requested" (3.2.3), the new one included.
func (st *State) refreshNotWider() error {
	r := st.authz.as.token
	if r == nil {
		return fmt.Errorf("no token request sent yet")
	}
	if r.Status/100 != 2 {
		return st.tokenRefused("")
	}
	scope, present := r.JSON["scope"].(string)
	if !present || slices.Contains(strings.Fields(scope), widerScope) {
		return st.depart("refresh with a scope never granted (OAuth 2.1 3.2.3)", "a refusal, or a token whose scope leaves "+widerScope+" out",
			describeOAuth(r), r.Exchange)
	}
	return nil
}
