package steps

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/oauthclient"
)

// rotationRule is what OAuth 2.1 4.3.1 asks of refresh tokens, and of
// public clients' alone: a confidential client's need not rotate.
const rotationRule = "rotates refresh tokens or sender-constrains them for public clients (OAuth 2.1 4.3.1)"

// refreshedOnce is the first refresh a replay check builds on; the replay's
// refusal is rotation's, which binds public clients only.
func (st *authzState) refreshedOnce(ctx context.Context) error {
	if err := st.needPublicClient(rotationRule); err != nil {
		return err
	}
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
		return st.skip("the authorization server issued no refresh token; MCP leaves that to it (authorization.10), so there is nothing to refresh with; " + st.offlineAccessSaid())
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
	if err := st.needPublicClient(rotationRule); err != nil {
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

// refreshWider asks, in a refresh, for the scope originally granted and one
// more (OAuth 2.1 4.3.1: "The requested scope MUST NOT include any scope not
// originally granted by the resource owner"). The one more is a scope the
// server itself advertises, which it could grant: a scope it does not know
// is dropped by any server, and that proves nothing. When it advertises
// none the grant lacks, the scenario is not run.
func (st *authzState) refreshWider(ctx context.Context) error {
	granted := st.grantedScope()
	wider, known := st.advertisedBeyond(granted)
	if st.authz.as.wider != "" && !slices.Contains(strings.Fields(granted), st.authz.as.wider) {
		// The scope the authorization request left out, and the grant too.
		wider = st.authz.as.wider
	}
	if wider == "" {
		return st.skip(fmt.Sprintf("the servers advertise no scope the grant (%q) lacks (%s), so there is no scope to ask for that the authorization server knows and did not grant",
			granted, known))
	}
	st.authz.as.wider = wider
	form := st.refreshForm()
	form.Set("scope", strings.TrimSpace(granted+" "+wider))
	return st.tokenRequest(ctx, form)
}

// advertisedBeyond is a scope the authorization server's scopes_supported
// or the scope the run chose from the challenge (Scope Selection Strategy)
// names and granted leaves out, offline_access last; and what was
// advertised, for a reason.
func (st *authzState) advertisedBeyond(granted string) (string, string) {
	var advertised []string
	if md := st.authz.as.md; md != nil {
		advertised = append(advertised, md.Strings("scopes_supported")...)
	}
	advertised = append(advertised, strings.Fields(st.authz.as.scope)...)
	var beyond []string
	for _, s := range advertised {
		if !slices.Contains(strings.Fields(granted), s) && !slices.Contains(beyond, s) {
			beyond = append(beyond, s)
		}
	}
	slices.SortStableFunc(beyond, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == "offline_access":
			return 1
		case b == "offline_access":
			return -1
		}
		return 0
	})
	known := fmt.Sprintf("scopes_supported and the challenge's scope name %q", advertised)
	if len(beyond) == 0 {
		return "", known
	}
	return beyond[0], known
}

// codeForLess obtains a code for less than every scope advertised, so that
// a refresh has an advertised scope to ask for that the grant lacks: the
// scope the run chose, when the servers advertise one beyond it; else that
// scope without its last member but offline_access, when it has two or
// more, the one left out being what the refresh asks for.
func (st *authzState) codeForLess(ctx context.Context) error {
	chosen := st.authz.as.scope
	if beyond, _ := st.advertisedBeyond(chosen); beyond == "" {
		f := strings.Fields(chosen)
		// offline_access stays: some servers issue refresh tokens only
		// for it.
		for i := len(f) - 1; len(f) > 1 && i >= 0; i-- {
			if f[i] != "offline_access" {
				st.authz.as.wider = f[i]
				st.authz.as.scope = strings.Join(slices.Delete(slices.Clone(f), i, i+1), " ")
				break
			}
		}
	}
	return st.codeIssued(ctx)
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
	wider := st.authz.as.wider
	scope, present := r.JSON["scope"].(string)
	if !present || slices.Contains(strings.Fields(scope), wider) {
		return st.depart("refresh with a scope never granted (OAuth 2.1 3.2.3)", "a refusal, or a token whose scope leaves "+wider+" out",
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
	return st.sendToken(ctx, form, st.authz.as.secondSecret)
}

// offlineAccessSaid says whether the authorization server advertises
// offline_access, which some issue refresh tokens for alone, and whether the
// authorization request asked for it (withOfflineAccess).
func (st *authzState) offlineAccessSaid() string {
	asked := slices.Contains(strings.Fields(st.authz.as.scope), "offline_access")
	switch advertised := st.authz.as.md != nil && slices.Contains(st.authz.as.md.Strings("scopes_supported"), "offline_access"); {
	case advertised && asked:
		return fmt.Sprintf("its metadata's scopes_supported names offline_access, and the authorization request asked for it (scope %q)", st.authz.as.scope)
	case advertised:
		return fmt.Sprintf("its metadata's scopes_supported names offline_access, which the authorization request did not ask for (scope %q)", st.authz.as.scope)
	case asked:
		return fmt.Sprintf("the authorization request asked for offline_access (scope %q), which its metadata's scopes_supported does not name", st.authz.as.scope)
	}
	return "its metadata's scopes_supported does not name offline_access, and the authorization request did not ask for it"
}
