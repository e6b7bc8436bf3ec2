package steps

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/wire"
)

// neverIssued is a token no authorization server issued: RFC 7662 2.2 says
// what introspection answers for one.
const neverIssued = "conform-never-issued-3f9a1c7e"

// registerIntrospection binds the steps of RFC 7662 introspection, which
// binds an authorization server that advertises introspection_endpoint
// (RFC 8414 2): what the client asks the endpoint, and what it answers.
func (st *authzState) registerIntrospection(sc stepContext) {
	stepTable{
		"the target's credential without authenticating": func(ctx context.Context) error {
			return st.askIntrospection(ctx, st.Target.Credential, "", false)
		},
		"the target's credential": func(ctx context.Context) error {
			return st.askIntrospection(ctx, st.Target.Credential, "", true)
		},
		"the target's credential with token_type_hint refresh_token": func(ctx context.Context) error {
			return st.askIntrospection(ctx, st.Target.Credential, "refresh_token", true)
		},
		"a token the server never issued": func(ctx context.Context) error { return st.askIntrospection(ctx, neverIssued, "", true) },
	}.bind(sc, `^the client introspects `, `$`, nil)
	stepTable{
		"does not say the token is active":   noContext(st.introspectionNotActive),
		"says active, a boolean":             noContext(st.introspectionStatesActive),
		"says active true":                   noContext(func() error { return st.introspectionActiveIs(true, false) }),
		"says active false":                  noContext(func() error { return st.introspectionActiveIs(false, false) }),
		"says active false and nothing else": noContext(func() error { return st.introspectionActiveIs(false, true) }),
	}.bind(sc, `^the introspection `, `$`, nil)
}

// advertisesIntrospection: RFC 7662 binds only an authorization server
// that offers introspection; its metadata says so (RFC 8414 2).
func (st *authzState) advertisesIntrospection() error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	if md.String("introspection_endpoint") == "" {
		return st.skip("not applicable: the authorization server metadata names no introspection_endpoint (RFC 8414 2), and RFC 7662 binds only a server that offers one")
	}
	return nil
}

// askIntrospection asks the advertised introspection endpoint about token
// (RFC 7662 2.1) with the token_type_hint hint, as introspectorFor says
// when authenticated, a client with a secret, else with no credentials at
// all; the answer is the scenario's to judge.
func (st *authzState) askIntrospection(ctx context.Context, token, hint string, authenticated bool) error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	if token == "" {
		return st.skip(st.Target.Lacks("credential") + ": introspection is asked about the target's credential")
	}
	who := st.introspectorFor(md)
	switch {
	case !authenticated:
		who.clientID, who.secret = "", oauthclient.Secret{}
	case who.clientID == "" || who.secret.Value == "":
		return st.skip("the introspection endpoint requires the caller to authenticate (RFC 7662 2.1), and the profile gives no client with a secret: " +
			"set mcp_authorization.introspection_client_id and introspection_client_secret_env (or client_id and client_secret_env) to a client the authorization server lets introspect")
	}
	r, err := st.sendIntrospection(ctx, who, token, hint)
	if err != nil {
		// A transport failure says nothing of what introspection answers;
		// the endpoint's URL is TLS-2's to judge.
		return st.skip(fmt.Sprintf("the introspection_endpoint %s could not be reached (%v), so introspection cannot be judged", who.endpoint, err))
	}
	st.oauth = r
	st.hearOAuth(r)
	return nil
}

// needIntrospection is the last introspection answer, for a judgement that
// needs the caller to have been let in: an authenticated caller refused is
// a client the server does not let introspect, which RFC 7662 2.1 allows.
func (st *authzState) needIntrospection(authorized bool) (*oauthclient.Reply, error) {
	r := st.oauth
	if r == nil {
		return nil, fmt.Errorf("no introspection sent yet")
	}
	if r.Throttled() {
		return nil, st.skipThrottled(r, "introspection", "")
	}
	if authorized && (r.Status == http.StatusUnauthorized || r.Status == http.StatusForbidden) {
		return nil, st.skip(fmt.Sprintf("the introspection endpoint refused the profile's client (%s): set mcp_authorization.client_id to a client it lets introspect",
			describeOAuth(r)))
	}
	return r, nil
}

// introspectionNotActive: the endpoint "MUST also require some form of
// authorization to access this endpoint" (RFC 7662 2.1), so a caller with
// none learns nothing of a token the MCP server serves; a refusal, or an
// answer that does not say active, keeps the rule.
func (st *authzState) introspectionNotActive() error {
	r, err := st.needIntrospection(false)
	if err != nil {
		return err
	}
	if active, stated := oauthclient.Active(r); stated && active {
		return st.depart("introspection without client authentication (RFC 7662 2.1: the endpoint MUST require some form of authorization)",
			"a refusal, or no word that the token is active", describeOAuth(r), r.Exchange)
	}
	return nil
}

// introspectionStatesActive: "active REQUIRED. Boolean indicator of whether
// or not the presented token is currently active" (RFC 7662 2.2). Whether
// it is true is the server's: it may not let this client introspect that
// token (section 2.2).
func (st *authzState) introspectionStatesActive() error {
	r, err := st.needIntrospection(true)
	if err != nil {
		return err
	}
	if _, stated := oauthclient.Active(r); !stated {
		return st.depart("introspection response (RFC 7662 2.2: active REQUIRED)", "HTTP 200 with active, a JSON boolean", describeOAuth(r), r.Exchange)
	}
	return nil
}

// introspectionActiveIs judges the answer's active: true for a token found
// whatever the hint (RFC 7662 2.1: the server "MUST extend its search
// across all of its supported token types"), false for a token never
// issued (2.2: "MUST return an introspection response with the "active"
// field set to "false""), and, alone, nothing else: "the authorization
// server SHOULD NOT include any additional information about an inactive
// token" (2.2).
func (st *authzState) introspectionActiveIs(want, alone bool) error {
	r, err := st.needIntrospection(true)
	if err != nil {
		return err
	}
	check := "introspection response (RFC 7662 2.2)"
	switch {
	case want:
		check = "introspection under another token_type_hint (RFC 7662 2.1)"
	case alone:
		check = "introspection response for an inactive token (RFC 7662 2.2: no additional information)"
	}
	if active, stated := oauthclient.Active(r); !stated || active != want {
		return st.depart(check, fmt.Sprintf("HTTP 200 with active %t", want), describeOAuth(r), r.Exchange)
	}
	if alone {
		var extra []string
		for k := range r.JSON {
			if k != "active" {
				extra = append(extra, k)
			}
		}
		slices.Sort(extra)
		if len(extra) > 0 {
			return st.depart(check, "active false and nothing else", "also "+wire.JSONText(extra), r.Exchange)
		}
	}
	return nil
}
