package steps

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/oauthclient"
)

// What the token endpoint issues and keeps (MCP security.2, Token Theft;
// OAuth 2.1 sections 1.4.1, 3.2.3, 4.3 and 4.3.1): the token response's
// members, and the scope and validity of refresh tokens.

// accessTokenCarried: a successful token response carries "access_token:
// REQUIRED" (OAuth 2.1 3.2.3). A refused redemption is the flow's set-up
// failing, which leaves the scenario not run.
func (st *authzState) accessTokenCarried() error {
	r, err := st.needToken()
	if err != nil {
		return err
	}
	if r.Status/100 != 2 {
		e, _ := r.String("error")
		return st.skip(fmt.Sprintf("the redemption was refused (%s), so there is no successful token response to read; %s", describeOAuth(r), st.remedyFor(e)))
	}
	if tok, _ := r.String("access_token"); tok == "" {
		return st.depart("successful token response (OAuth 2.1 3.2.3)", "access_token, REQUIRED", describeOAuth(r), r.Exchange)
	}
	return nil
}

// scopeNamedWhenOther: "If the issued access token scope is different from
// the one requested by the client, the authorization server MUST include
// the scope response parameter" (OAuth 2.1 1.4.1; 3.2.3). A response that
// names a scope keeps the rule; one that leaves it out is judged by the
// scope the token itself states (a readable JWT's scope or scp).
func (st *authzState) scopeNamedWhenOther() error {
	r, err := st.needToken()
	if err != nil {
		return err
	}
	if _, named := r.JSON["scope"]; named {
		return nil
	}
	asked := strings.Fields(st.authz.as.scope)
	if len(asked) == 0 {
		return st.skip("the authorization request asked for no scope, so no scope the token has differs from one requested")
	}
	tok, _ := r.String("access_token")
	claims, ok := oauthclient.Claims(tok)
	granted, stated := tokenScope(claims)
	if !ok || !stated {
		return st.skip("the token response names no scope, and the access token is no readable JWT stating one, so whether the scope differs from the one requested cannot be seen")
	}
	slices.Sort(asked)
	slices.Sort(granted)
	if !slices.Equal(slices.Compact(asked), slices.Compact(granted)) {
		return st.depart("token response (OAuth 2.1 1.4.1, 3.2.3)", fmt.Sprintf("scope, since the token grants %q where %q was asked", strings.Join(granted, " "), st.authz.as.scope),
			"no scope in the response", r.Exchange)
	}
	return nil
}

// tokenScope is the scope a JWT access token states: scope, a
// space-delimited string (RFC 9068 2.2.3), or scp, a list.
func tokenScope(claims map[string]any) ([]string, bool) {
	switch s := claims["scope"].(type) {
	case string:
		return strings.Fields(s), true
	}
	if l, ok := claims["scp"].([]any); ok {
		var out []string
		for _, v := range l {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out, true
	}
	return nil, false
}

// refreshChanged refreshes with the refresh token held, one character
// changed: refresh tokens "cannot be generated, modified, or guessed" (OAuth
// 2.1 4.3), and the server MUST "validate the refresh token" (4.3.1).
func (st *authzState) refreshChanged(ctx context.Context) error {
	form := st.refreshForm()
	b := []byte(st.authz.as.refresh)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	form.Set("refresh_token", string(b))
	return st.tokenRequest(ctx, form)
}

// refreshNewest refreshes with the refresh token the first refresh
// returned, after the one it replaced was presented again: refresh token
// rotation then "will revoke the active refresh token as well as the access
// authorization grant associated with it" (OAuth 2.1 4.3.1).
func (st *authzState) refreshNewest(ctx context.Context) error {
	as := &st.authz.as
	if as.newest == "" || as.newest == as.refresh {
		return st.skip("the first refresh returned no new refresh token, so there is no rotation whose grant a replay could revoke (REFRESH-1 judges rotation)")
	}
	form := st.refreshForm()
	form.Set("refresh_token", as.newest)
	return st.tokenRequest(ctx, form)
}

// refreshPartOfScope refreshes asking for the first scope of the grant
// alone, and holds the refresh token it returns: "If a new refresh token is
// issued, the refresh token scope MUST be identical to that of the refresh
// token included by the client in the request" (OAuth 2.1 4.3.3).
func (st *authzState) refreshPartOfScope(ctx context.Context) error {
	as := &st.authz.as
	granted := strings.Fields(st.grantedScope())
	if len(granted) < 2 {
		return st.skip(fmt.Sprintf("the grant's scope is %q, so no refresh can ask for part of it", st.grantedScope()))
	}
	as.controlScope = strings.Join(granted, " ")
	form := st.refreshForm()
	form.Set("scope", granted[0])
	if err := st.tokenRequest(ctx, form); err != nil {
		return err
	}
	next, _ := as.token.String("refresh_token")
	if as.token.Status == http.StatusOK && (next == "" || next == as.refresh) {
		return st.skip("the refresh asking for part of the scope returned no new refresh token, so no new refresh token's scope can be judged")
	}
	if next != "" {
		as.refresh = next
	}
	return nil
}

// refreshTokenScopeKept judges the refresh without scope that the new
// refresh token obtained: its scope is the whole scope of the refresh
// token it replaced (OAuth 2.1 4.3.3). A response that names no scope has
// the scope requested (3.2.3), and an omitted scope is the one originally
// granted (4.3.1). A refused refresh leaves nothing to read.
func (st *authzState) refreshTokenScopeKept() error {
	r, err := st.needToken()
	if err != nil {
		return err
	}
	if tok, _ := r.String("access_token"); r.Status/100 != 2 || tok == "" {
		return st.skip(fmt.Sprintf("the refresh with the new refresh token was not served (%s), so the scope it carries cannot be read", describeOAuth(r)))
	}
	return st.keepsControlScope(r, "scope of a new refresh token (OAuth 2.1 4.3.3)", "the scope of the refresh token it replaced")
}

// keepsControlScope judges that a token response r which names a scope
// names every scope of the run's refresh without scope (controlScope); one
// that names none has the scope requested (OAuth 2.1 3.2.3).
func (st *authzState) keepsControlScope(r *oauthclient.Reply, check, want string) error {
	got, named := r.JSON["scope"].(string)
	if !named {
		return nil
	}
	var missing []string
	for _, s := range strings.Fields(st.authz.as.controlScope) {
		if !slices.Contains(strings.Fields(got), s) {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		return st.depart(check, fmt.Sprintf("%s, %q", want, st.authz.as.controlScope),
			fmt.Sprintf("scope %q, without %s", got, strings.Join(missing, " ")), r.Exchange)
	}
	return nil
}
