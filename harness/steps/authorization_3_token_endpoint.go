package steps

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/outcome"
)

// The token endpoint's request rules (MCP authorization.3, which points to
// OAuth 2.1 section 3.2): what it ignores, and how it authenticates a
// confidential client (sections 2.4.1, 3.2.2 and 3.2.4).

// unknownTokenParam is a parameter no token request defines.
const unknownTokenParam = "conform_unknown"

// redeemWithUnknownParam redeems the code with a parameter the server
// cannot know added: "The authorization server MUST ignore unrecognized
// request parameters sent to the token endpoint" (OAuth 2.1 3.2).
func (st *authzState) redeemWithUnknownParam(ctx context.Context) error {
	return st.redeem(ctx, func(f url.Values) { f.Set(unknownTokenParam, "1") })
}

// refreshWithEmptyScope refreshes with scope sent without a value:
// "Parameters sent without a value MUST be treated as if they were omitted
// from the request" (OAuth 2.1 3.2). The scope the control's refresh (the
// same without scope) obtained is kept to compare.
func (st *authzState) refreshWithEmptyScope(ctx context.Context) error {
	st.authz.as.controlScope = st.grantedScope()
	form := st.refreshForm()
	form.Set("scope", "")
	return st.tokenRequest(ctx, form)
}

// issuedAsWithoutScope: a refresh with scope= is served as the refresh
// without scope was, with no narrower scope (OAuth 2.1 3.2; 4.3.1: an
// omitted scope is "treated as equal to the scope originally granted").
// A response without scope leaves it as requested, that is as omitted.
func (st *authzState) issuedAsWithoutScope() error {
	if err := st.tokenIssued(); err != nil {
		return err
	}
	return st.keepsControlScope(st.authz.as.token, "a parameter sent without a value (OAuth 2.1 3.2)", "the scope the refresh without scope obtained")
}

// holdsSecret leaves a client-authentication scenario not run when the
// run's client holds no secret: the rules bind confidential clients only.
// A server whose metadata advertises "none" alone serves public clients
// only (RFC 8414 2), so the rules do not apply to it.
func (st *authzState) holdsSecret(context.Context) error {
	if st.Target.Profile.MCPAuthorization.ClientSecret() == "" {
		if err := st.publicClientsOnly("client authentication, OAuth 2.1 3.2.1"); err != nil {
			return err
		}
		return st.skip("the run's client holds no client secret, so client authentication (OAuth 2.1 3.2.2) has no confidential client to judge: " +
			"set mcp_authorization.client_id and mcp_authorization.client_secret_env to a confidential client registered with redirect_uri " + st.redirectURI())
	}
	return nil
}

// publicClientsOnly leaves a confidential client's rule, named by rule,
// not applicable to a server whose metadata advertises the
// token_endpoint_auth_method none alone: it serves public clients only
// (RFC 8414 2).
func (st *authzState) publicClientsOnly(rule string) error {
	md, err := st.needAS()
	if err != nil {
		return nil
	}
	if methods := md.Strings("token_endpoint_auth_methods_supported"); len(methods) > 0 && !slices.ContainsFunc(methods, func(m string) bool { return m != "none" }) {
		return st.skip(outcome.NotApplicable + fmt.Sprintf("the authorization server's token_endpoint_auth_methods_supported is %q: it serves public clients only, and the rule binds it for confidential ones (%s)", methods, rule))
	}
	return nil
}

// wrongSecret is a client secret no authorization server issued.
const wrongSecret = "conform-wrong-secret-5d1e"

// redeemAuthenticated redeems the code, the client authenticated as secret
// says (nothing, in the body, or in HTTP Basic) and by nothing else (OAuth
// 2.1 2.4: one method per request).
func (st *authzState) redeemAuthenticated(ctx context.Context, secret oauthclient.Secret) error {
	as := &st.authz.as
	if err := st.needCode(); err != nil {
		return err
	}
	return st.sendToken(ctx, oauthclient.CodeForm(as.code, as.clientID, st.redirectURI(), as.verify, st.endpoint()), secret)
}

// redeemSecretInBody: "To support clients in possession of a client secret,
// the authorization server MUST support the client including the client
// credentials in the request body content" (OAuth 2.1 2.4.1), whatever its
// metadata lists. The server supports the body for clients registered for
// it: one that holds a client registered for another method to that method
// (RFC 7591 2: the client's "requested authentication method for the token
// endpoint") departs from nothing, so such a client leaves the check not
// run; one whose method is not given is judged.
func (st *authzState) redeemSecretInBody(ctx context.Context) error {
	a := st.Target.Profile.MCPAuthorization
	if m := a.ClientAuthMethod; m != "" && m != oauthclient.AuthPost {
		return st.skip(fmt.Sprintf("the client %q was registered for the token_endpoint_auth_method %s (mcp_authorization.client_auth_method), and a server may hold a client to the method it registered with (RFC 7591 2), "+
			"so its secret refused in the body says nothing of the body's support (OAuth 2.1 2.4.1): set mcp_authorization.client_id and client_secret_env to a client registered for client_secret_post", a.ClientID, m))
	}
	return st.redeemAuthenticated(ctx, oauthclient.Secret{Value: a.ClientSecret(), Post: true})
}

// redeemWrongSecret redeems with a wrong secret sent the way the control
// sent the right one.
func (st *authzState) redeemWrongSecret(ctx context.Context) error {
	return st.redeemAuthenticated(ctx, oauthclient.SecretFor(st.authz.as.md, "", wrongSecret))
}

// redeemWrongBasic redeems with a wrong secret in HTTP Basic. A server that
// takes no Basic (OAuth 2.1 2.4.1 makes it a MAY), as its metadata says,
// leaves the scenario not run.
func (st *authzState) redeemWrongBasic(ctx context.Context) error {
	if methods := st.authz.as.md.Strings("token_endpoint_auth_methods_supported"); len(methods) > 0 && !slices.Contains(methods, "client_secret_basic") {
		return st.skip(fmt.Sprintf("the authorization server's token_endpoint_auth_methods_supported %q lacks client_secret_basic: it takes no HTTP Basic, which OAuth 2.1 2.4.1 leaves to it", methods))
	}
	return st.redeemAuthenticated(ctx, oauthclient.Secret{Value: wrongSecret})
}

// clientRefused: the server MUST "require client authentication for
// confidential clients" (OAuth 2.1 3.2.2), and a client identifier "MUST NOT
// be used alone for client authentication" (2.2). Any error response refuses;
// invalid_client is the code 3.2.4 defines for it, but the sentence demands
// the refusal, not the code.
func (st *authzState) clientRefused() error {
	r, err := st.needToken()
	if err != nil {
		return err
	}
	if e, _ := r.String("error"); r.Status/100 != 4 || e == "" {
		return st.depart("client authentication of a confidential client (OAuth 2.1 3.2.2)", "a refusal: a 4xx error response, invalid_client (3.2.4)", describeOAuth(r), r.Exchange)
	}
	return nil
}

// basicScheme matches a challenge of the Basic scheme in a WWW-Authenticate
// value.
var basicScheme = regexp.MustCompile(`(?i)(^|,)\s*basic(\s|,|$)`)

// basicChallenged: "If the client attempted to authenticate via the
// Authorization request header field, the authorization server MUST respond
// with an HTTP 401 (Unauthorized) status code and include the
// WWW-Authenticate response header field matching the authentication scheme
// used by the client" (OAuth 2.1 3.2.4).
func (st *authzState) basicChallenged() error {
	r, err := st.needToken()
	if err != nil {
		return err
	}
	challenged := slices.ContainsFunc(r.Header.Values("WWW-Authenticate"), basicScheme.MatchString)
	if r.Status != http.StatusUnauthorized || !challenged {
		return st.depart("failed HTTP Basic client authentication (OAuth 2.1 3.2.4)", "HTTP 401 with a WWW-Authenticate Basic challenge",
			fmt.Sprintf("%s, WWW-Authenticate %q", describeOAuth(r), r.Header.Values("WWW-Authenticate")), r.Exchange)
	}
	return nil
}
