package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"

	"github.com/conform-mcp/conform/impl/baseurl"
)

// hiddenInput matches the hidden fields the consent page writes (consent.html).
var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// ApproveDevice approves a pending device authorization on the host at base
// the way its owner would at the verification URI (RFC 8628 section 3.3):
// sign in with the owner secret, open the consent page for the user code,
// then submit its form with the chosen role and Approve. It lets CI and the
// in-process suite sign in without a browser; the session cookie and the
// form's CSRF token are honoured like a browser would. hc's own cookie jar,
// if any, is left alone.
//
// The owner secret goes only to base's origin, and never in clear across a
// network: base must be https unless it is a loopback address, and no
// redirect is followed, so an answer pointing elsewhere cannot carry the
// secret or the session on.
func ApproveDevice(ctx context.Context, hc *http.Client, base, ownerSecret, userCode, roleName string) error {
	targetOrigin, err := ownerTarget(base)
	if err != nil {
		return err
	}
	back := "/oauth/device?user_code=" + url.QueryEscape(userCode)
	c, err := signInAsOwner(ctx, hc, targetOrigin, ownerSecret, back)
	if err != nil {
		return err
	}
	status, _, page, err := exchange(ctx, c, http.MethodGet, targetOrigin+back, nil)
	switch {
	case err != nil:
		return fmt.Errorf("open the consent page: %w", err)
	case status == http.StatusBadRequest:
		return fmt.Errorf("the consent page %s refused the request: it is unknown, expired or already used", back)
	case status != http.StatusOK:
		return fmt.Errorf("the consent page %s answered %d", back, status)
	}
	form := approvalForm(page, roleName)
	if form == nil {
		return fmt.Errorf("the consent page for %s shows no approval form: the code is unknown, expired or already used", userCode)
	}
	status, _, _, err = exchange(ctx, c, http.MethodPost, targetOrigin+"/oauth/device", form)
	if err != nil {
		return fmt.Errorf("approve on the consent page: %w", err)
	}
	if status != http.StatusOK {
		return fmt.Errorf("approve on the consent page: the host answered %d", status)
	}
	return nil
}

// ownerTarget checks base, the host the operator named, before the owner
// secret is sent to it, and returns its origin: an absolute http or https
// URL, and https unless the host is a loopback address, where nobody on the
// network can read the secret.
func ownerTarget(base string) (string, error) {
	b, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || b.Host == "" || (b.Scheme != "https" && b.Scheme != "http") {
		return "", fmt.Errorf("target %q is not an absolute http or https URL", base)
	}
	if b.Scheme == "http" && !baseurl.Loopback(b.Hostname()) {
		return "", fmt.Errorf("target %q uses plain http on a non-loopback host: the owner secret would cross the network readable, use https", base)
	}
	return b.Scheme + "://" + b.Host, nil
}

// signInAsOwner signs in to the consent pages at targetOrigin with the owner
// secret, asking to go back to back afterwards. It returns a copy of hc
// holding the session in its own cookie jar and following no redirect: the
// sign-in answers 303 to back, which the caller opens itself on
// targetOrigin, whatever Location says.
func signInAsOwner(ctx context.Context, hc *http.Client, targetOrigin, ownerSecret, back string) (*http.Client, error) {
	if ownerSecret == "" {
		return nil, errors.New("sign in as the owner: no owner secret")
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	c := *hc
	c.Jar = jar
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	status, _, page, err := exchange(ctx, &c, http.MethodPost, targetOrigin+"/oauth/login",
		url.Values{"secret": {ownerSecret}, "return": {back}})
	switch {
	case err != nil:
		return nil, fmt.Errorf("sign in as the owner: %w", err)
	case status == http.StatusForbidden:
		return nil, errors.New("sign in as the owner: the host refused the owner secret")
	case status == http.StatusTooManyRequests:
		return nil, errors.New("sign in as the owner: too many wrong tries from this address; wait a minute")
	case status != http.StatusSeeOther:
		return nil, fmt.Errorf("sign in as the owner: the host answered %d: %s", status, strings.TrimSpace(page))
	}
	return &c, nil
}

// approvalForm is the consent page's approval form, filled in with the role
// and Approve, or nil when the page shows none. Each hidden field is copied
// as the page writes it (consent.html), the CSRF token among them.
func approvalForm(page, roleName string) url.Values {
	form := url.Values{"role": {roleName}, "action": {"approve"}}
	for _, m := range hiddenInput.FindAllStringSubmatch(page, -1) {
		form.Set(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	if form.Get("csrf") == "" {
		return nil
	}
	return form
}

// exchange sends one request and returns the status, the Location header and
// the body, read up to 1 MiB. Whether redirects are followed is hc's choice.
func exchange(ctx context.Context, hc *http.Client, method, u string, form url.Values) (int, string, string, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return 0, "", "", err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, "", "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, "", "", err
	}
	return resp.StatusCode, resp.Header.Get("Location"), string(data), nil
}
