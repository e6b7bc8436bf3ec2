package steps

import (
	"context"
	"fmt"
	"net/http"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
)

// registerRevocation binds the steps of RFC 7009 revocation, which binds
// an authorization server that advertises revocation_endpoint (RFC 8414
// 2): the client revokes the refresh token it holds, under its own
// token_type_hint or another one.
func (st *authzState) registerRevocation(sc stepContext) {
	stepTable{
		"its refresh token": func(ctx context.Context) error { return st.revokeRefresh(ctx, "refresh_token") },
		"its refresh token under the token_type_hint access_token": func(ctx context.Context) error {
			return st.revokeRefresh(ctx, "access_token")
		},
	}.bind(sc, `^the client revokes `, `$`, nil)
	st.credentials["the access token the client obtained"] = noContext(st.withObtainedToken)
}

// advertisesRevocation: RFC 7009 binds only an authorization server that
// offers revocation; its metadata says so (RFC 8414 2).
func (st *authzState) advertisesRevocation() error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	if md.String("revocation_endpoint") == "" {
		return st.skip("not applicable: the authorization server metadata names no revocation_endpoint (RFC 8414 2), and RFC 7009 binds only a server that offers one")
	}
	return nil
}

// revokeRefresh revokes the refresh token the client holds, as that client
// (RFC 7009 2.1). The revocation is set-up, not verdict: when it is not
// answered 200 ("if the token has been revoked successfully", section 2.2)
// what follows would say nothing, and the scenario is not run.
func (st *authzState) revokeRefresh(ctx context.Context, hint string) error {
	as := &st.authz.as
	if as.refresh == "" {
		return fmt.Errorf("no refresh token obtained yet")
	}
	endpoint := as.md.String("revocation_endpoint")
	secret := as.secret
	r, err := st.obeyRetryAfter(ctx, "revocation", func() (*oauthclient.Reply, error) {
		return oauthclient.Revoke(ctx, st.Target.HTTP, endpoint, as.clientID, secret, as.refresh, hint)
	})
	if err != nil {
		// A transport failure says nothing of what revocation does; the
		// endpoint's URL is TLS-2's to judge.
		return st.skip(fmt.Sprintf("the revocation_endpoint %s could not be reached (%v), so revocation cannot be judged", endpoint, err))
	}
	if r.Throttled() {
		return st.skipThrottled(r, "revocation at "+endpoint, "")
	}
	if r.Status != http.StatusOK {
		return st.skip(fmt.Sprintf("the revocation of the client's refresh token at %s (token_type_hint %s) answered %s, not 200 (RFC 7009 2.2), "+
			"so what the token endpoint or the MCP server does with it next says nothing of revocation", endpoint, hint, describeOAuth(r)))
	}
	return nil
}

// withObtainedToken presents the access token of the client's last token
// response.
func (st *authzState) withObtainedToken() error {
	r := st.authz.as.token
	if r == nil {
		return fmt.Errorf("no token obtained yet")
	}
	token, _ := r.String("access_token")
	if token == "" {
		return st.skip("the token response carried no access_token to present (TOKRESP-2 judges it)")
	}
	st.hide(token)
	st.auth = "Bearer " + token
	return nil
}

// obtainedServed is the positive control of a refusal of the access token
// the client obtained: the MCP server serves it the request that needs
// authorization first.
func (st *authzState) obtainedServed(ctx context.Context) error {
	if err := st.withObtainedToken(); err != nil {
		return err
	}
	return st.control(ctx, st.auth, func(reply *mcpclient.Reply) string {
		if reply.Status/100 == 2 {
			return ""
		}
		return fmt.Sprintf("the control failed: the access token the client obtained was not served the request that needs authorization (%s), "+
			"so a refusal of it later would say nothing; set mcp_authorization.protected_request to a request it may make, or mcp_authorization.scope to the scope it needs",
			describe(reply))
	})
}
