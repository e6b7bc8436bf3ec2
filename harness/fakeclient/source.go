package fakeclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
)

// errUnknownClient is the device authorization's answer to a client ID the
// host no longer knows.
var errUnknownClient = errors.New("the host no longer knows the client")

// deviceRestarts bounds how often the device flow is started again after
// invalid_grant within one run.
const deviceRestarts = 3

// runSource makes the run's call, and when the server answers 401, signs in
// as the source document says and calls again, once.
func (c *client) runSource(ctx context.Context) error {
	key := c.tokenKey(c.URL)
	token := c.state.Tokens[key]
	r, err := c.call(ctx, bearer(token))
	if err != nil {
		return err
	}
	if r.Status == http.StatusUnauthorized {
		// Source 5.8: "When a credential stops working, the client signs
		// in again."
		if token != "" && c.broken(NoSignInAgain) {
			return fmt.Errorf("the server refused the credential")
		}
		if token, err = c.signIn(ctx, r.Header); err != nil {
			return err
		}
		c.state.Tokens[key] = token
		if r, err = c.call(ctx, bearer(token)); err != nil {
			return err
		}
	}
	if err := c.finish(r); err != nil {
		return err
	}
	if c.broken(CredentialInQuery) && token != "" {
		_, err := mcpclient.New(c.URL+"?access_token="+url.QueryEscape(token), c.HTTP).Call(ctx, bearer(token), "tools/list", nil)
		return err
	}
	return nil
}

// signIn follows the 401 challenge (source 7.2) to the resource metadata,
// registers once (source 7.3), and runs the device grant, starting it
// again on invalid_grant (source 7.3's notes).
func (c *client) signIn(ctx context.Context, challenge http.Header) (string, error) {
	base := strings.TrimSuffix(c.URL, "/mcp")
	if m := challengeParam(challenge, "resource_metadata"); m != "" && !c.broken(ChallengeNotFollowed) {
		prm, err := oauthclient.New("", oauthclient.Endpoints{}, c.HTTP).Get(ctx, m)
		if err != nil {
			return "", fmt.Errorf("follow the challenge: %w", err)
		}
		servers, _ := prm.JSON["authorization_servers"].([]any)
		if s, ok := firstString(servers); ok && s != "" {
			base = s
		}
	}
	oc := oauthclient.New(base, oauthclient.Endpoints{Register: "/oauth/register", DeviceAuthorization: "/oauth/device_authorization", Token: "/oauth/token"}, c.HTTP)
	clientID := c.state.Clients[base]
	fresh := clientID == "" || c.broken(RegistersEveryStart)
	register := func() error {
		reg, err := oc.Register(ctx, map[string]any{"client_name": "fakeclient", "redirect_uris": []string{"http://127.0.0.1/callback"}})
		if err != nil {
			return fmt.Errorf("register: %w", err)
		}
		if clientID, _ = reg.String("client_id"); clientID == "" {
			return fmt.Errorf("the registration answered %d without a client_id", reg.Status)
		}
		c.state.Clients[base] = clientID
		return nil
	}
	if fresh {
		if err := register(); err != nil {
			return "", err
		}
	}
	for attempt := 0; attempt <= deviceRestarts; attempt++ {
		token, restart, err := c.deviceFlow(ctx, oc, clientID)
		if errors.Is(err, errUnknownClient) && !fresh {
			// Source 3: an unused registration is removed, and "The
			// client must then register again".
			fresh = true
			if err := register(); err != nil {
				return "", err
			}
			continue
		}
		if err != nil || !restart {
			return token, err
		}
		if c.broken(DeviceFlowNotRestarted) {
			return "", fmt.Errorf("the device code was refused (invalid_grant)")
		}
		fmt.Fprintln(c.Out, "the device code was refused; starting the sign-in again")
	}
	return "", fmt.Errorf("the device code was refused %d times", deviceRestarts+1)
}

// deviceFlow runs one device authorization (RFC 8628) to its end; restart
// is set when the code was refused with invalid_grant.
func (c *client) deviceFlow(ctx context.Context, oc *oauthclient.Client, clientID string) (token string, restart bool, err error) {
	d, err := oc.DeviceAuthorize(ctx, clientID, nil)
	if err != nil {
		return "", false, fmt.Errorf("start the device flow: %w", err)
	}
	if e, _ := d.String("error"); e == "invalid_client" {
		return "", false, errUnknownClient
	}
	code, _ := d.String("device_code")
	if code == "" {
		return "", false, fmt.Errorf("the device authorization answered %d without a device_code", d.Status)
	}
	user, _ := d.String("user_code")
	verify, _ := d.String("verification_uri")
	fmt.Fprintf(c.Out, "Sign in at %s with the code %s\n", verify, user)
	interval := time.Second
	if n, ok := d.JSON["interval"].(float64); ok && n > 0 {
		interval = time.Duration(n) * time.Second
	}
	form := url.Values{"grant_type": {"device_code"}, "device_code": {code}, "client_id": {clientID}}
	for {
		select {
		case <-ctx.Done():
			return "", false, ctx.Err()
		case <-time.After(interval):
		}
		t, err := oc.Token(ctx, form)
		if err != nil {
			return "", false, fmt.Errorf("poll for the credential: %w", err)
		}
		e, _ := t.String("error")
		switch e {
		case "":
			access, _ := t.String("access_token")
			if access == "" {
				return "", false, fmt.Errorf("the token endpoint answered %d without an access_token", t.Status)
			}
			return access, false, nil
		case "authorization_pending":
		case "slow_down":
			interval += 5 * time.Second
		case "invalid_grant":
			return "", true, nil
		default:
			return "", false, fmt.Errorf("the token endpoint answered %s", e)
		}
	}
}
