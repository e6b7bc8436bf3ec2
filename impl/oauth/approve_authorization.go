package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"

	"github.com/conform-mcp/conform/impl/baseurl"
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
	b, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || b.Host == "" || (b.Scheme != "https" && b.Scheme != "http") {
		return "", fmt.Errorf("target %q is not an absolute http or https URL", base)
	}
	if b.Scheme == "http" && !baseurl.Loopback(b.Hostname()) {
		return "", fmt.Errorf("target %q uses plain http on a non-loopback host: the owner secret would cross the network readable, use https", base)
	}
	u, err := url.Parse(authorizationURL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("authorization URL %q is not absolute", authorizationURL)
	}
	targetOrigin := b.Scheme + "://" + b.Host
	if !origin.Same(targetOrigin, authorizationURL) {
		return "", fmt.Errorf("authorization URL %q is not on the target %s: refusing to send it the owner secret", authorizationURL, targetOrigin)
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return "", err
	}
	noFollow := *hc
	noFollow.Jar = jar
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	status, _, page, err := exchange(ctx, &noFollow, http.MethodPost, targetOrigin+"/oauth/login",
		url.Values{"secret": {ownerSecret}, "return": {u.RequestURI()}})
	switch {
	case err != nil:
		return "", fmt.Errorf("sign in as the owner: %w", err)
	case status != http.StatusSeeOther:
		return "", fmt.Errorf("sign in as the owner: the host answered %d: %s", status, strings.TrimSpace(page))
	}
	status, loc, page, err := exchange(ctx, &noFollow, http.MethodGet, authorizationURL, nil)
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
	status, loc, page, err = exchange(ctx, &noFollow, http.MethodPost, targetOrigin+u.Path, form)
	if err != nil {
		return "", fmt.Errorf("approve on the consent page: %w", err)
	}
	if status/100 != 3 || loc == "" {
		return "", fmt.Errorf("approving answered %d without a redirect: %s", status, strings.TrimSpace(page))
	}
	return loc, nil
}
