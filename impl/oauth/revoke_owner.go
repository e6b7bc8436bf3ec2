package oauth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// RevokeAsOwner revokes a token on the host at base as its owner: it signs in
// with the owner secret and posts the token to the revocation endpoint (RFC
// 7009), where the owner's session may revoke a token of any client. A
// refresh token takes its whole grant with it. The owner secret goes only to
// base, with the guards ApproveDevice has: https unless loopback, no
// redirect followed.
func RevokeAsOwner(ctx context.Context, hc *http.Client, base, ownerSecret, token string) error {
	if token == "" {
		return fmt.Errorf("revoke: no token")
	}
	targetOrigin, err := ownerTarget(base)
	if err != nil {
		return err
	}
	c, err := signInAsOwner(ctx, hc, targetOrigin, ownerSecret, "/oauth/device")
	if err != nil {
		return err
	}
	status, _, body, err := exchange(ctx, c, http.MethodPost, targetOrigin+"/oauth/revoke", url.Values{"token": {token}})
	if err != nil {
		return fmt.Errorf("revoke: %w", err)
	}
	if status != http.StatusOK {
		return fmt.Errorf("revoke: the host answered %d: %s", status, strings.TrimSpace(body))
	}
	return nil
}
