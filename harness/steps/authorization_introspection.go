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

// introspector is how the harness asks the authorization server's
// introspection endpoint (RFC 7662 2.1), for evidence (introspect) and in
// the scenarios that judge the endpoint (askIntrospection) alike: where,
// and as which client.
type introspector struct {
	endpoint, clientID string
	secret             oauthclient.Secret
}

// introspectorFor is the endpoint md advertises (introspection_endpoint,
// RFC 8414 2), else the profile's, and the profile's introspection client,
// since the endpoint "MUST also require some form of authorization"; its
// secret is sent as introspection_endpoint_auth_methods_supported allows,
// and, when md lists none ("determined by other means", RFC 8414 2), as the
// token endpoint's methods do (oauthclient.SecretFor). md may be nil.
func (st *authzState) introspectorFor(md *oauthclient.ServerMetadata) introspector {
	a := st.Target.Profile.MCPAuthorization
	id, secret := a.Introspector()
	who := introspector{endpoint: a.IntrospectionEndpoint, clientID: id, secret: oauthclient.Secret{Value: secret}}
	if md == nil {
		return who
	}
	if e := md.String("introspection_endpoint"); e != "" {
		who.endpoint = e
	}
	methods := md.Strings("introspection_endpoint_auth_methods_supported")
	if len(methods) == 0 {
		who.secret = oauthclient.SecretFor(md, "", secret)
		return who
	}
	who.secret.Post = !slices.Contains(methods, oauthclient.AuthBasic) && slices.Contains(methods, oauthclient.AuthPost)
	return who
}

// sendIntrospection sends who's endpoint the introspection request for
// token, with the token_type_hint hint ("" for none), authenticated as
// who's client ("" for none), waiting out a Retry-After (RFC 6585 section
// 4).
func (st *authzState) sendIntrospection(ctx context.Context, who introspector, token, hint string) (*oauthclient.Reply, error) {
	return st.obeyRetryAfter(ctx, "introspection", func() (*oauthclient.Reply, error) {
		return oauthclient.Introspect(ctx, st.Target.HTTP, who.endpoint, who.clientID, who.secret, token, hint)
	})
}

// introspect asks the authorization server's introspection endpoint about
// token (RFC 7662 2.1), as introspectorFor says. It is evidence the harness
// gathers for a premise, never a verdict on the endpoint.
func (st *authzState) introspect(ctx context.Context, token string) introspected {
	who := st.introspectorFor(st.quietMetadata(ctx))
	endpoint := who.endpoint
	if endpoint == "" {
		return introspected{why: "the authorization server advertises no introspection_endpoint (RFC 8414 2) and mcp_authorization.introspection_endpoint names none"}
	}
	if who.clientID == "" {
		return introspected{endpoint: endpoint, why: fmt.Sprintf("the introspection endpoint %s needs a client to authenticate (RFC 7662 2.1): "+
			"set mcp_authorization.introspection_client_id and mcp_authorization.introspection_client_secret_env", endpoint)}
	}
	r, err := st.sendIntrospection(ctx, who, token, "access_token")
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
