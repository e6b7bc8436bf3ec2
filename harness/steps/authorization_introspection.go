package steps

import (
	"context"
	"fmt"
	"slices"

	"github.com/conform-mcp/conform/harness/oauthclient"
)

// introspected is what RFC 7662 introspection said of a token, or why it
// could not be asked.
type introspected struct {
	// reply is the endpoint's answer; nil when it was not asked.
	reply *oauthclient.Reply
	// active is the answer's active, when stated.
	active, stated bool
	// endpoint is where it was asked; why, why it was not, or why its
	// answer says nothing.
	endpoint, why string
}

// introspect asks the authorization server's introspection endpoint about
// token (RFC 7662 2.1): the one its metadata advertises
// (introspection_endpoint, RFC 8414 2), else the profile's, authenticated as
// the profile's introspection client, since the endpoint "MUST also require
// some form of authorization". It is evidence the harness gathers for a
// premise, never a verdict on the endpoint.
func (st *authzState) introspect(ctx context.Context, token string) introspected {
	a := st.Target.Profile.MCPAuthorization
	md := st.quietMetadata(ctx)
	endpoint := a.IntrospectionEndpoint
	if md != nil && md.String("introspection_endpoint") != "" {
		endpoint = md.String("introspection_endpoint")
	}
	if endpoint == "" {
		return introspected{why: "the authorization server advertises no introspection_endpoint (RFC 8414 2) and mcp_authorization.introspection_endpoint names none"}
	}
	clientID, secret := a.Introspector()
	if clientID == "" {
		return introspected{endpoint: endpoint, why: fmt.Sprintf("the introspection endpoint %s needs a client to authenticate (RFC 7662 2.1): "+
			"set mcp_authorization.introspection_client_id and mcp_authorization.introspection_client_secret_env", endpoint)}
	}
	var methods []string
	if md != nil {
		methods = md.Strings("introspection_endpoint_auth_methods_supported")
	}
	s := oauthclient.Secret{Value: secret, Post: len(methods) > 0 && !slices.Contains(methods, "client_secret_basic") && slices.Contains(methods, "client_secret_post")}
	r, err := st.obeyRetryAfter(ctx, "introspection", func() (*oauthclient.Reply, error) {
		return oauthclient.Introspect(ctx, st.Target.HTTP, endpoint, clientID, s, token, "access_token")
	})
	if err != nil {
		return introspected{endpoint: endpoint, why: fmt.Sprintf("the introspection endpoint %s could not be asked: %v", endpoint, err)}
	}
	if r.Throttled() {
		return introspected{endpoint: endpoint, why: fmt.Sprintf("the introspection endpoint %s throttled the question (HTTP %d, Retry-After %q); run again once the limit has refilled",
			endpoint, r.Status, r.Header.Get("Retry-After"))}
	}
	active, stated := oauthclient.Active(r)
	in := introspected{reply: r, active: active, stated: stated, endpoint: endpoint}
	if !stated {
		in.why = fmt.Sprintf("the introspection endpoint %s answered %s, which states no active; check mcp_authorization.introspection_client_id and its secret", endpoint, describeOAuth(r))
	}
	return in
}

// quietMetadata is the authorization server's metadata for gathering
// evidence: the scenario's, else found as a client finds it, sending
// nothing the scenario hears and judging nothing; nil when there is none.
func (st *authzState) quietMetadata(ctx context.Context) *oauthclient.ServerMetadata {
	if st.authz.as.md != nil {
		return st.authz.as.md
	}
	issuer := st.Target.Profile.MCPAuthorization.Issuer
	if issuer == "" {
		r, err := st.MCP.Call(ctx, "", st.protected().Method, st.protectedParams(st.protected()))
		if err != nil {
			return nil
		}
		if issuer, _, err = oauthclient.FollowChallenge(ctx, st.Target.HTTP, st.endpoint(), r.Status, r.Header.Values("WWW-Authenticate")); err != nil {
			return nil
		}
	}
	md, _, err := oauthclient.DiscoverServer(ctx, st.Target.HTTP, issuer)
	if err != nil {
		return nil
	}
	return md
}
