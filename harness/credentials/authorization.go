package credentials

import (
	"context"
	"fmt"
	"io"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/registrations"
	"github.com/conform-mcp/conform/harness/target"
)

// Authorization completes what the mcp-authorization pack presents: the
// credentials Device finds and, when the profile names an authorization
// approval command, the credential for the MCP endpoint and, when
// mcp_authorization.other_resource names one, a token the same
// authorization server issued for that other resource. Tokens from the
// environment always win; whatever cannot be obtained leaves the scenarios
// that need it not run, with the reason.
func Authorization(ctx context.Context, t *target.Target, stderr io.Writer) {
	Device(ctx, t, stderr)
	authorizationCode(ctx, t, stderr)
}

// authorizationCode obtains the pack's tokens through the authorization
// code flow, standing the approval command in for the person.
func authorizationCode(ctx context.Context, t *target.Target, stderr io.Writer) {
	p := t.Profile
	a := p.MCPAuthorization
	wantOther := t.Tokens.OtherResource == "" && a.OtherResource != ""
	if t.ApproveAuthorization == nil || (t.Credential != "" && !wantOther) {
		return
	}
	found, scope, err := findIssuer(ctx, t)
	issuer := a.Issuer
	if issuer == "" {
		if err != nil {
			fmt.Fprintf(stderr, "conform: could not find the authorization server: %v\n", err)
			if t.Credential == "" {
				t.CredentialUnobtained = "could not find the authorization server: " + err.Error()
			}
			return
		}
		issuer = found
	}
	if a.Scope != "" {
		scope = a.Scope
	}
	flow := oauthclient.CodeFlow{HTTP: t.HTTP, Approve: t.ApproveAuthorization, RedirectURI: a.RedirectURI, ClientID: a.ClientID, Scope: scope, Secret: a.ClientSecret(),
		Method: a.ClientAuthMethod, Sleep: target.Sleep}
	kept := keptCodeClient{store: t.Clients, key: registrations.Key{Server: issuer, RedirectURI: a.RedirectURI, Use: registrations.CodeTokens}}
	if a.ClientID == "" {
		kept.use(&flow)
	}
	obtain := func(resource, what string) (string, error) {
		tok, err := kept.obtain(ctx, &flow, issuer, resource)
		if err != nil {
			err = fmt.Errorf("could not obtain %s from %s through the authorization code flow: %w", what, issuer, err)
			fmt.Fprintf(stderr, "conform: %v\n", err)
			return "", err
		}
		access, _ := tok["access_token"].(string)
		fmt.Fprintf(stderr, "conform: obtained %s from %s through the authorization code flow\n", what, issuer)
		return access, nil
	}
	if wantOther {
		t.Tokens.OtherResource, _ = obtain(a.OtherResource, "a token for the other resource "+a.OtherResource)
		// Security considerations 1: audience binding holds "when the
		// Authorization Server supports the capability"; TOK-5 judges a token
		// for another resource only when the server shows it binds tokens so.
		if t.Tokens.OtherResource != "" {
			proof, why := flow.HonoursResource(ctx, issuer, t.Tokens.OtherResource, a.OtherResource, t.Endpoint())
			if proof != "" {
				fmt.Fprintf(stderr, "conform: the authorization server binds tokens to their resource: %s\n", proof)
			}
			t.Tokens.OtherResourceUnproven = why
		}
	}
	// The credential is obtained last: an authorization server may revoke
	// a client's earlier tokens when the same client is authorized again,
	// and the run relies on the credential throughout.
	if t.Credential == "" {
		// The cause goes to the scenarios that need the credential, not
		// to stderr alone (target.Lacks).
		if tok, err := obtain(t.Endpoint(), "a token for "+t.Endpoint()); err != nil {
			t.CredentialUnobtained = err.Error()
		} else {
			t.Credential = tok
		}
	}
	// The client registered on the way serves the scenarios too, as their
	// second client, which they never authorize: one registration fewer
	// against a rate-limited server, and no later authorization of it
	// revokes the credential (target.Tokens.Client).
	if a.ClientID == "" && flow.ClientID != "" {
		t.Tokens.Client = target.RegisteredClient{Issuer: issuer, ID: flow.ClientID, Secret: flow.Secret, Method: flow.Method}
	}
}

// findIssuer asks the MCP endpoint anonymously for the request that needs
// authorization and follows its challenge to the authorization server and
// the scope a client asks for (oauthclient.FollowChallenge).
func findIssuer(ctx context.Context, t *target.Target) (string, string, error) {
	req := t.Profile.MCPAuthorization.ProtectedRequest
	var params any = req.Params
	if req.Params == nil {
		params = mcpclient.DefaultParams(req.Method)
	}
	status, challenges := 0, []string(nil)
	if r, err := mcpclient.New(t.Endpoint(), t.HTTP).Pin(t.Profile.MCPRevision).Call(ctx, "", req.Method, params); err == nil {
		status, challenges = r.Status, r.Header.Values("WWW-Authenticate")
	}
	return oauthclient.FollowChallenge(ctx, t.HTTP, t.Endpoint(), status, challenges)
}
