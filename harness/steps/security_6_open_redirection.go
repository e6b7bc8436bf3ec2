package steps

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

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

func (st *authzState) noRedirectToUnregistered() error {
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

// refusalIs judges only the error of a refusal: a server may redeem the code
// (OAuth 2.1 10.2 removed redirect_uri from the token request), but one that
// refuses does so with the code named.
func (st *authzState) refusalIs(code string) error {
	r, err := st.needToken()
	if err != nil {
		return err
	}
	if r.Status/100 == 2 {
		return nil
	}
	return st.tokenRefused(code)
}

// stateEchoed: state is "REQUIRED if the state parameter was present in the
// client authorization request. The exact value received from the client"
// (OAuth 2.1 4.1.2 and 4.1.2.1). A state repeated with the exact value is
// PARAM-1's departure, not this one's.
func (st *authzState) stateEchoed() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	if got := a.params["state"]; len(got) == 0 || slices.ContainsFunc(got, func(s string) bool { return s != stateSent }) {
		return st.depart("state of the authorization response (OAuth 2.1 4.1.2)", fmt.Sprintf("%q, exactly as sent", stateSent), stateSaid(got)+" in "+a.location, a.ex)
	}
	return nil
}

// stateSaid describes the state parameters a response carried.
func stateSaid(got []string) string {
	switch len(got) {
	case 0:
		return "no state parameter"
	case 1:
		return fmt.Sprintf("%q", got[0])
	}
	return fmt.Sprintf("%d state parameters, %s", len(got), quoteAll(got))
}

// authorizationWithOrigin sends the valid authorization request as a
// script on another origin would, with an Origin header.
func (st *authzState) authorizationWithOrigin(ctx context.Context) error {
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
func (st *authzState) noCORS() error {
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

// loopbackRedirect is LOOPBACK-1's premise: the rule is about loopback IP
// redirect URIs (OAuth 2.1 8.4.2, RFC 8252 7.3).
func (st *authzState) loopbackRedirect() error {
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
func (st *authzState) acceptsRedirect() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	const check = "loopback redirect URI on another port (OAuth 2.1 4.1.1, 8.4.2)"
	switch {
	case a.redirected && a.params.Get("code") != "":
		return nil
	case a.redirected:
		// A redirect there without a code (an error redirect) is a
		// refusal, whatever 4.1.2.1 says of redirecting it: the control got
		// a code for the same client, scope and redirect URI on the
		// registered port, so the port is what was refused.
		return st.depart(check, "a redirect to the redirect_uri on the other port with a code",
			fmt.Sprintf("%s: error=%s (%s)", a.describe(), a.params.Get("error"), a.params.Get("error_description")), a.ex)
	case a.approvalErr != nil:
		return st.skip(fmt.Sprintf("the authorization endpoint answered %s and the approval command (oauth.authorization_approval_command) failed: %v; "+
			"whether the server refused the port cannot be told from that", a.describe(), a.approvalErr))
	case !a.redirected && st.Target.ApproveAuthorization == nil && (a.status == http.StatusOK || a.status/100 == 3):
		return st.skip(fmt.Sprintf("the authorization endpoint answered %s, which may be a consent page: set oauth.authorization_approval_command so the suite can see where it leads", a.describe()))
	}
	return st.depart(check, "a redirect to the redirect_uri on the other port", a.describe(), a.ex)
}

// corsPreflight sends the CORS preflight (Fetch Standard, CORS protocol) a
// script on corsOrigin would send before its authorization request.
func (st *authzState) corsPreflight(ctx context.Context) error {
	u, err := st.requestURL()
	if err != nil {
		return err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodOptions, u, nil)
	if err != nil {
		return err
	}
	hreq.Header.Set("Origin", corsOrigin)
	hreq.Header.Set("Access-Control-Request-Method", http.MethodGet)
	a, err := st.askAuthorization(hreq)
	if err != nil {
		return err
	}
	st.authz.as.resp = a
	return nil
}

// authorizationAnswered is CORS-1's control: the valid authorization
// request, sent as a client sends it, reaches an authorization endpoint
// that answers it (a sign-in page or a redirect). A 4xx or 5xx there says
// the endpoint or the request is wrong, and a missing CORS header on it
// would prove nothing.
func (st *authzState) authorizationAnswered(ctx context.Context) error {
	u, err := st.requestURL()
	if err != nil {
		return err
	}
	a, err := st.openAuthorization(ctx, u, "")
	if err != nil {
		return err
	}
	if a.status >= 400 {
		return st.skip(fmt.Sprintf("the valid authorization request, without an Origin header, got HTTP %d from %s, so what the endpoint does for another origin says nothing; "+
			"check the authorization server's authorization_endpoint and the profile's mcp_authorization keys", a.status, u))
	}
	return nil
}

// redirectQuery is the query REDIR-4's client registers its redirect URI
// with, when the profile's has none: "The redirect URI MAY include an query
// string component" (OAuth 2.1 2.3).
const redirectQuery = "conform_registered=1"

// queryClient is REDIR-4's client: the run's own when the profile's
// redirect URI carries a query, else one it registers with the profile's
// redirect URI and redirectQuery added. A server may refuse such a
// registration; the rule then has nothing to judge.
func (st *authzState) queryClient(ctx context.Context) error {
	if err := st.publicClient(ctx); err != nil {
		return err
	}
	u, err := url.Parse(st.redirectURI())
	if err != nil {
		return st.skip("mcp_authorization.redirect_uri is no URL: " + err.Error())
	}
	if u.RawQuery != "" {
		return nil
	}
	u.RawQuery = redirectQuery
	id, refused, err := st.registerOwn(ctx, []string{u.String()})
	if err != nil {
		return err
	}
	if refused != "" {
		return st.skip(refused + ", so no client has a redirect URI with a query whose authorization response could keep it: " +
			"set mcp_authorization.client_id to a client registered with a redirect URI that carries a query, and mcp_authorization.redirect_uri to that URI")
	}
	st.authz.as.clientID, st.authz.as.redirectURI = id, u.String()
	return nil
}

// keepsQuery: the redirect URI's query "MUST be retained when adding
// additional query parameters" (OAuth 2.1 2.3).
func (st *authzState) keepsQuery() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	u, err := url.Parse(st.redirectURI())
	if err != nil {
		return err
	}
	for k, vs := range u.Query() {
		for _, v := range vs {
			if !slices.Contains(a.params[k], v) {
				return st.depart("authorization response (OAuth 2.1 2.3: the redirect URI's query \"MUST be retained\")",
					fmt.Sprintf("%s=%s kept from the redirect_uri %s", k, v, st.redirectURI()), a.location, a.ex)
			}
		}
	}
	return nil
}
