package steps

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/conform-mcp/conform/harness/oauthclient"
)

// registerAuthzServerRules binds the steps of the rules a client can see at
// the authorization server beyond the code flow itself: what a refresh token
// is bound to (security.2, OAuth 2.1 3.2.3 and 4.3.1), a CORS preflight at
// the authorization endpoint (OAuth 2.1 3.1), and a redirect URI with a
// fragment at registration (OAuth 2.1 2.3).
func (st *State) registerAuthzServerRules(sc stepContext) {
	sc.Step(`^the client's valid refresh obtains a token$`, func(ctx context.Context) error { return st.refreshControl(ctx, false) })
	sc.Step(`^the client's valid refresh, asking for the scope granted, obtains a token$`, func(ctx context.Context) error { return st.refreshControl(ctx, true) })
	sc.Step(`^the client refreshes naming another resource than the MCP server$`, st.refreshOtherResource)
	sc.Step(`^the refresh is refused, or issues a token that is not for that resource$`, st.refreshNotRetargeted)
	sc.Step(`^the same authorization request without an Origin header is answered with a page or a redirect$`, st.authorizationAnswered)
	sc.Step(`^a script on that origin asks the authorization endpoint's CORS preflight for the request$`, st.corsPreflight)
	sc.Step(`^a public client registers at the advertised registration_endpoint with the profile's redirect_uri and a fragment$`, func(ctx context.Context) error {
		return st.registerAtAS(ctx, withFragment(st.redirectURI()))
	})
}

// refreshForm is the client's refresh of the refresh token it holds, naming
// the MCP server as the resource (authorization, Resource Parameter
// Implementation).
func (st *State) refreshForm() url.Values {
	as := &st.authz.as
	return oauthclient.RefreshForm(as.refresh, as.clientID, st.endpoint())
}

// grantedScope is the scope of the last token response, or, when it names
// none, the scope the client asked for (OAuth 2.1 3.2.3: scope may be left
// out when "identical to the scope requested").
func (st *State) grantedScope() string {
	as := &st.authz.as
	if s, _ := as.token.String("scope"); s != "" {
		return s
	}
	return as.scope
}

// refreshControl is the positive control of a refused refresh: the client's
// own refresh, the request the scenario then changes, is served. When it is
// not, a refusal would mean nothing and the scenario is not run. The refresh
// token it rotated to, if any, is the one the scenario presents next.
func (st *State) refreshControl(ctx context.Context, withScope bool) error {
	as := &st.authz.as
	form := st.refreshForm()
	if withScope {
		if s := st.grantedScope(); s != "" {
			form.Set("scope", s)
		}
	}
	if err := st.tokenRequest(ctx, form); err != nil {
		return err
	}
	if err := st.setUp(as.token, "the control, the client's own refresh made the same way,"); err != nil {
		return err
	}
	if next, _ := as.token.String("refresh_token"); next != "" {
		as.refresh = next
	}
	return nil
}

// unconsentedResource is the resource a refresh asks for that the resource
// owner never consented to: the profile's other resource, which the
// authorization server knows, else one no server serves.
func (st *State) unconsentedResource() string {
	if r := st.Target.Profile.MCPAuthorization.OtherResource; r != "" {
		return r
	}
	return "https://other-resource.conform.invalid/mcp"
}

// refreshOtherResource refreshes asking for a token for another resource
// than the one the code was issued for.
func (st *State) refreshOtherResource(ctx context.Context) error {
	form := st.refreshForm()
	form.Set("resource", st.unconsentedResource())
	return st.tokenRequest(ctx, form)
}

// refreshNotRetargeted: refresh tokens "MUST be bound to the scope and
// resource servers as consented by the resource owner" (OAuth 2.1 3.2.3). A
// refusal keeps the binding; so does a token whose aud leaves the other
// resource out. An opaque token says nothing of its audience, so the check
// is not run.
func (st *State) refreshNotRetargeted() error {
	r := st.authz.as.token
	if r == nil {
		return fmt.Errorf("no token request sent yet")
	}
	if r.Status/100 != 2 {
		return st.tokenRefused("")
	}
	other := st.unconsentedResource()
	tok, _ := r.String("access_token")
	claims, ok := oauthclient.Claims(tok)
	if !ok {
		return st.skip(fmt.Sprintf("the refresh asking for %s was served with a token that is no readable JWT, so which resource it is for cannot be seen; "+
			"a refusal (invalid_target, RFC 8707 2) or an aud would have shown it", other))
	}
	if aud := oauthclient.Audience(claims); slices.Contains(aud, other) {
		return st.depart("refresh asking for a resource never consented (OAuth 2.1 3.2.3)",
			"a refusal, or a token whose aud leaves "+other+" out", fmt.Sprintf("a token whose aud is %q", aud), r.Exchange)
	}
	return nil
}

// corsPreflight sends the CORS preflight (Fetch Standard, CORS protocol) a
// script on corsOrigin would send before its authorization request.
func (st *State) corsPreflight(ctx context.Context) error {
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
func (st *State) authorizationAnswered(ctx context.Context) error {
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

// withFragment is the redirect URI with a fragment, which "The redirect URI
// MUST NOT include" (OAuth 2.1 2.3).
func withFragment(redirectURI string) string {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return redirectURI + "#conform"
	}
	u.Fragment = "conform"
	return u.String()
}
