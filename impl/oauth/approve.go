package oauth

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// hiddenInput matches the hidden fields the consent page writes (consent.html).
var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// ApproveDevice approves a pending device authorization on the host at base
// the way a person would at the verification URI (RFC 8628 section 3.3):
// open the consent page for the user code, then submit its form with the
// chosen role and Approve. It lets CI and the in-process suite sign in
// without a browser; the page's CSRF token is honoured like a browser would.
func ApproveDevice(ctx context.Context, hc *http.Client, base, userCode, role string) error {
	base = strings.TrimRight(base, "/")
	page, err := fetch(ctx, hc, http.MethodGet, base+"/oauth/device?user_code="+url.QueryEscape(userCode), nil)
	if err != nil {
		return fmt.Errorf("open the consent page: %w", err)
	}
	form := url.Values{"role": {role}, "action": {"approve"}}
	for _, m := range hiddenInput.FindAllStringSubmatch(page, -1) {
		form.Set(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	if form.Get("csrf") == "" {
		return fmt.Errorf("the consent page for %s shows no approval form", userCode)
	}
	if _, err := fetch(ctx, hc, http.MethodPost, base+"/oauth/device", form); err != nil {
		return fmt.Errorf("approve on the consent page: %w", err)
	}
	return nil
}

func fetch(ctx context.Context, hc *http.Client, method, u string, form url.Values) (string, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return "", err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s %s answered %d", method, u, resp.StatusCode)
	}
	return string(data), nil
}
