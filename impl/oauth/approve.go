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
func ApproveDevice(ctx context.Context, hc *http.Client, base, ownerSecret, userCode, roleName string) error {
	base = strings.TrimRight(base, "/")
	c, page, err := signInAsOwner(ctx, hc, base, ownerSecret, "/oauth/device?user_code="+url.QueryEscape(userCode))
	if err != nil {
		return err
	}
	form := approvalForm(page, roleName)
	if form == nil {
		return fmt.Errorf("the consent page for %s shows no approval form: the code is unknown, expired or already used", userCode)
	}
	status, _, _, err := exchange(ctx, c, http.MethodPost, base+"/oauth/device", form)
	if err != nil {
		return fmt.Errorf("approve on the consent page: %w", err)
	}
	if status != http.StatusOK {
		return fmt.Errorf("approve on the consent page: the host answered %d", status)
	}
	return nil
}

// signInAsOwner signs in to the consent pages of the host at base with the
// owner secret, and opens the consent page back (a path such as
// /oauth/device?user_code=...). It returns a copy of hc holding the session
// in its own cookie jar, and the page.
func signInAsOwner(ctx context.Context, hc *http.Client, base, ownerSecret, back string) (*http.Client, string, error) {
	if ownerSecret == "" {
		return nil, "", errors.New("sign in as the owner: no owner secret")
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, "", err
	}
	c := *hc
	c.Jar = jar
	status, _, page, err := exchange(ctx, &c, http.MethodPost, base+"/oauth/login",
		url.Values{"secret": {ownerSecret}, "return": {back}})
	switch {
	case err != nil:
		return nil, "", fmt.Errorf("sign in as the owner: %w", err)
	case status == http.StatusForbidden:
		return nil, "", errors.New("sign in as the owner: the host refused the owner secret")
	case status == http.StatusTooManyRequests:
		return nil, "", errors.New("sign in as the owner: too many wrong tries from this address; wait a minute")
	case status == http.StatusBadRequest:
		return nil, "", fmt.Errorf("the consent page %s refused the request: it is unknown, expired or already used", back)
	case status != http.StatusOK:
		return nil, "", fmt.Errorf("the consent page %s answered %d", back, status)
	}
	return &c, page, nil
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
