package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/conform-mcp/conform/impl/origin"
)

// ApproveAuthorization stands in for the owner at the authorization
// endpoint (RFC 6749 section 4.1.1): it signs in with the owner secret,
// opens the authorization URL and, when the host shows its consent page,
// submits the page's form with the chosen role and Approve. It returns the
// URL the host redirected to: the client's redirect URI with a code, or with
// an error when the host refused the request without asking. Redirects are
// never followed, since the redirect URI need not be served by anyone; this
// lets CI and the in-process suite run the authorization code flow without a
// browser. hc's own cookie jar, if any, is left alone.
//
// The authorization URL comes from a client (conform fills it in from the
// request it built), never from the operator, so the owner secret only ever
// goes to base, the host the operator named: an authorization URL on any
// other origin is refused, and so is a base reached over plain http unless
// it is a loopback address, where nobody on the network can read the secret.
func ApproveAuthorization(ctx context.Context, hc *http.Client, base, authorizationURL, ownerSecret, roleName string) (string, error) {
	if ownerSecret == "" {
		return "", errors.New("approve: no owner secret")
	}
	targetOrigin, err := ownerTarget(base)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(authorizationURL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("authorization URL %q is not absolute", authorizationURL)
	}
	if !origin.Same(targetOrigin, authorizationURL) {
		return "", fmt.Errorf("authorization URL %q is not on the target %s: refusing to send it the owner secret", authorizationURL, targetOrigin)
	}
	noFollow, err := signInAsOwner(ctx, hc, targetOrigin, ownerSecret, u.RequestURI())
	if err != nil {
		return "", err
	}
	status, loc, page, err := exchange(ctx, noFollow, http.MethodGet, authorizationURL, nil)
	if err != nil {
		return "", fmt.Errorf("open the authorization URL: %w", err)
	}
	if status/100 == 3 {
		return loc, nil
	}
	if status != http.StatusOK {
		return "", fmt.Errorf("the authorization URL answered %d: %s", status, strings.TrimSpace(page))
	}
	form := approvalForm(page, roleName)
	if form == nil {
		return "", fmt.Errorf("the authorization page shows no approval form")
	}
	status, loc, page, err = exchange(ctx, noFollow, http.MethodPost, targetOrigin+u.Path, form)
	if err != nil {
		return "", fmt.Errorf("approve on the consent page: %w", err)
	}
	if status/100 != 3 || loc == "" {
		return "", fmt.Errorf("approving answered %d without a redirect: %s", status, strings.TrimSpace(page))
	}
	return loc, nil
}
