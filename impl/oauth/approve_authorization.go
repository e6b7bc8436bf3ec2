package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
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
func ApproveAuthorization(ctx context.Context, hc *http.Client, authorizationURL, ownerSecret, roleName string) (string, error) {
	if ownerSecret == "" {
		return "", errors.New("approve: no owner secret")
	}
	u, err := url.Parse(authorizationURL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("authorization URL %q is not absolute", authorizationURL)
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return "", err
	}
	noFollow := *hc
	noFollow.Jar = jar
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	base := u.Scheme + "://" + u.Host
	status, _, page, err := exchange(ctx, &noFollow, http.MethodPost, base+"/oauth/login",
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
	status, loc, page, err = exchange(ctx, &noFollow, http.MethodPost, base+u.Path, form)
	if err != nil {
		return "", fmt.Errorf("approve on the consent page: %w", err)
	}
	if status/100 != 3 || loc == "" {
		return "", fmt.Errorf("approving answered %d without a redirect: %s", status, strings.TrimSpace(page))
	}
	return loc, nil
}
