package target

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// AuthorizationApprover stands in for the person at an authorization
// endpoint: given the authorization request URL, it returns the URL the
// authorization server redirected the user agent to (with code or error).
type AuthorizationApprover func(ctx context.Context, authorizationURL string) (string, error)

// Tokens are the access tokens the mcp-authorization pack presents beyond
// the target's own credential; "" when the run has none.
type Tokens struct {
	// Expired has expired (authorization.9.2).
	Expired string
	// ExpiredAt is when Expired expired, as the profile states it or the
	// harness knows it; zero when unknown.
	ExpiredAt time.Time
	// OtherResource was issued for another resource (RFC 8707).
	OtherResource string
	// OtherResourceUnproven says why OtherResource, which the run obtained
	// itself, is not shown to be bound to that other resource; "" when it
	// is, or when the profile supplied it.
	OtherResourceUnproven string
	// Limited lacks the scope the profile's scoped request needs.
	Limited string
	// LimitedScope is the scope Limited holds, when the harness knows it
	// from the token response that issued it (RFC 6749 5.1), "" otherwise.
	LimitedScope string
	// OtherUser is valid for the server, issued to another user than the
	// target's credential (Security Best Practices 2.4.2).
	OtherUser string
	// Client is the client the run registered to obtain these tokens before
	// the scenarios, which they use as their second client, one they never
	// authorize again, so that the credential survives an authorization
	// server that revokes a client's earlier tokens when it is authorized
	// again; zero when the run registered none.
	Client RegisteredClient
}

// RegisteredClient is a client registered with an authorization server,
// known by that server's issuer: a public one, or a confidential one when
// the registration answered with a client_secret (RFC 7591 section 3.2.1).
type RegisteredClient struct {
	Issuer, ID string
	// Secret and Method are the client_secret and token_endpoint_auth_method
	// the registration answered with; "" for a public client.
	Secret, Method string
}

// At returns the client's ID when it was registered with the authorization
// server whose issuer is issuer, else "".
func (c RegisteredClient) At(issuer string) string {
	if c.ID == "" || strings.TrimSuffix(c.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
		return ""
	}
	return c.ID
}

// The capabilities of the mcp-authorization pack.
const (
	NeedsAuthorizationApproval = "authorization-approval"
	NeedsExpiredToken          = "expired-token"
	NeedsOtherResourceToken    = "other-resource-token"
	NeedsLimitedToken          = "limited-token"
	NeedsOtherUserToken        = "other-user-token"
	// NeedsAuthorization marks what only a server that implements MCP
	// authorization can be judged by; the steps find that out by asking it.
	NeedsAuthorization = "authorization"
)

// CommandAuthorizationApprover runs an authorization approval command with
// {authorization_url} and {target} (the base URL of the server under test)
// passed as arguments of sh, never spliced into the script, and takes the
// last line it prints as the redirect URL.
func CommandAuthorizationApprover(command, base string) AuthorizationApprover {
	script := strings.ReplaceAll(command, "{authorization_url}", `"$1"`)
	script = strings.ReplaceAll(script, "{target}", `"$2"`)
	return func(ctx context.Context, authorizationURL string) (string, error) {
		out, err := runCommand(ctx, "authorization_approval_command", script, "conform-authorize", authorizationURL, base)
		if err != nil {
			return "", err
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		last := strings.TrimSpace(lines[len(lines)-1])
		if last == "" {
			return "", fmt.Errorf("authorization_approval_command printed no redirect URL")
		}
		return last, nil
	}
}

// lacksAuthorization is Lacks for the mcp-authorization pack's capabilities.
func (t *Target) lacksAuthorization(capability string) (string, bool) {
	a := t.Profile.MCPAuthorization
	switch capability {
	case NeedsAuthorizationApproval:
		if t.ApproveAuthorization == nil {
			return "needs an authorization approved without a person: set oauth.authorization_approval_command", true
		}
	case NeedsExpiredToken:
		if t.Tokens.Expired == "" {
			return fmt.Sprintf("needs an expired access token: set mcp_authorization.expired_token_env (now %q)", a.ExpiredTokenEnv), true
		}
	case NeedsOtherResourceToken:
		if t.Tokens.OtherResource == "" {
			return fmt.Sprintf("needs a token the authorization server issued for another resource: set mcp_authorization.other_resource_token_env (now %q)", a.OtherResourceTokenEnv), true
		}
	case NeedsAuthorization:
		// Decided by probing the server (steps), not by the profile.
	case NeedsLimitedToken:
		if t.Tokens.Limited == "" {
			return fmt.Sprintf("needs a token without the scope of mcp_authorization.scoped_request: set mcp_authorization.limited_token_env (now %q)", a.LimitedTokenEnv), true
		}
	case NeedsOtherUserToken:
		if t.Tokens.OtherUser == "" {
			return fmt.Sprintf("needs a valid token of another user than the credential's: set mcp_authorization.other_user_token_env (now %q)", a.OtherUserTokenEnv), true
		}
	default:
		return "", false
	}
	return "", true
}
