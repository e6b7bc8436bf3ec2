package inprocess

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/impl/oauth"
	"github.com/conform-mcp/conform/impl/role"
)

// consentApprover approves a device sign-in on the reference host's consent
// page as its owner, with the default role, owner. Only the in-process
// target uses it; for other hosts the profile names an approval command.
func consentApprover(base, ownerSecret string, hc *http.Client) target.Approver {
	return func(ctx context.Context, userCode string) error {
		return oauth.ApproveDevice(ctx, hc, base, ownerSecret, userCode, "owner")
	}
}

// roleApprover approves an authorization request on the reference host's
// consent page at base as its owner, with the given role, and returns the
// redirect. With role "" the owner approves the role the page offers first,
// the narrowest that grants the scope asked for (role.ForScope), as a person
// who grants what the client asks does.
func roleApprover(hc *http.Client, base, ownerSecret, chosen string) target.AuthorizationApprover {
	return func(ctx context.Context, authorizationURL string) (string, error) {
		r := chosen
		if r == "" {
			u, err := url.Parse(authorizationURL)
			if err != nil {
				return "", fmt.Errorf("the authorization URL %q: %w", authorizationURL, err)
			}
			r = role.ForScope(u.Query().Get("scope"))
		}
		return oauth.ApproveAuthorization(ctx, hc, base, authorizationURL, ownerSecret, r)
	}
}
