package inprocess

import (
	"context"
	"net/http"

	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/impl/oauth"
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
// redirect.
func roleApprover(hc *http.Client, base, ownerSecret, role string) target.AuthorizationApprover {
	return func(ctx context.Context, authorizationURL string) (string, error) {
		return oauth.ApproveAuthorization(ctx, hc, base, authorizationURL, ownerSecret, role)
	}
}
