package steps

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/oauthclient"
)

// refreshedOnce is the first refresh a replay check builds on.
func (st *authzState) refreshedOnce(ctx context.Context) error {
	if err := st.refreshOnce(ctx); err != nil {
		return err
	}
	if err := st.setUp(st.authz.as.token, "the first refresh"); err != nil {
		return err
	}
	st.authz.as.newest, _ = st.authz.as.token.String("refresh_token")
	return nil
}

func (st *authzState) redeemedForRefresh(ctx context.Context) error {
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

func (st *authzState) refreshOnce(ctx context.Context) error {
	return st.tokenRequest(ctx, st.refreshForm())
}

func (st *authzState) refreshRotated() error {
	r, err := st.needToken()
	if err != nil {
		return err
	}
	next, _ := r.String("refresh_token")
	if next == "" || next == st.authz.as.refresh {
		return st.depart("refresh token rotation (OAuth 2.1 4.3.1)", "a new refresh_token", describeOAuth(r), r.Exchange)
	}
	return nil
}

// tokenLifetime: "Authorization servers SHOULD issue short-lived access
// tokens" (security.2); the only lifetime a client can see is expires_in
// (OAuth 2.1 3.2.3, RECOMMENDED).
func (st *authzState) tokenLifetime() error {
	r, err := st.needToken()
	if err != nil {
		return err
	}
	if n, ok := r.JSON["expires_in"].(float64); !ok || n <= 0 {
		return st.depart("token response (security.2, OAuth 2.1 3.2.3)", "expires_in, the access token's lifetime in seconds", describeOAuth(r), r.Exchange)
	}
	return nil
}

// widerScope is a scope no authorization server granted the suite.
const widerScope = "conform:never-granted"

// refreshWider asks, in a refresh, for the scope originally granted and one
// more (OAuth 2.1 4.3.1: "The requested scope MUST NOT include any scope not
// originally granted by the resource owner").
func (st *authzState) refreshWider(ctx context.Context) error {
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
func (st *authzState) refreshNotWider() error {
	r, err := st.needToken()
	if err != nil {
		return err
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

// refreshForm is the client's refresh of the refresh token it holds, naming
// the MCP server as the resource (authorization, Resource Parameter
// Implementation).
func (st *authzState) refreshForm() url.Values {
	as := &st.authz.as
	return oauthclient.RefreshForm(as.refresh, as.clientID, st.endpoint())
}

// grantedScope is the scope of the last token response, or, when it names
// none, the scope the client asked for (OAuth 2.1 3.2.3: scope may be left
// out when "identical to the scope requested").
func (st *authzState) grantedScope() string {
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
func (st *authzState) refreshControl(ctx context.Context, withScope bool) error {
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
func (st *authzState) unconsentedResource() string {
	if r := st.Target.Profile.MCPAuthorization.OtherResource; r != "" {
		return r
	}
	return "https://other-resource.conform.invalid/mcp"
}

// refreshOtherResource refreshes asking for a token for another resource
// than the one the code was issued for.
func (st *authzState) refreshOtherResource(ctx context.Context) error {
	form := st.refreshForm()
	form.Set("resource", st.unconsentedResource())
	return st.tokenRequest(ctx, form)
}

// refreshNotRetargeted: refresh tokens "MUST be bound to the scope and
// resource servers as consented by the resource owner" (OAuth 2.1 3.2.3). A
// refusal keeps the binding; so does a token whose aud leaves the other
// resource out. An opaque token says nothing of its audience, so the check
// is not run.
func (st *authzState) refreshNotRetargeted() error {
	r, err := st.needToken()
	if err != nil {
		return err
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

// refreshAsSecond refreshes the client's refresh token as the second
// client, which it was not issued to.
func (st *authzState) refreshAsSecond(ctx context.Context) error {
	form := st.refreshForm()
	form.Set("client_id", st.authz.as.second)
	return st.sendToken(ctx, form, st.secondSecret())
}
