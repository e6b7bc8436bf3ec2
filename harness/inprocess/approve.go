package inprocess

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/conform-mcp/conform/harness/target"
)

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// consentApprover approves a device sign-in the way a person would on the
// reference host's verification page: open it with the user code, then submit
// its form with the default role (owner) and Approve. Only the in-process
// target uses it; for other hosts the profile names an approval command.
func consentApprover(base string, hc *http.Client) target.Approver {
	return func(ctx context.Context, userCode string) error {
		page := base + "/oauth/device?user_code=" + url.QueryEscape(userCode)
		body, err := fetch(ctx, hc, http.MethodGet, page, nil)
		if err != nil {
			return fmt.Errorf("open the consent page: %w", err)
		}
		form := url.Values{"role": {"owner"}, "action": {"approve"}}
		for _, m := range hiddenInput.FindAllStringSubmatch(body, -1) {
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
