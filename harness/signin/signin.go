// Package signin obtains a credential from a host through the device grant
// (RFC 8628) without a person: it registers a client, starts a device
// authorization, has an approver stand in at the verification URI, and polls
// the token endpoint. The harness uses it for the in-process reference host
// and for targets whose profile names a device approval command.
package signin

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/target"
)

// RedirectURI is the loopback redirect the harness registers (RFC 8252
// section 7.3); the device grant never redirects, but registration requires one.
const RedirectURI = "http://127.0.0.1:8765/callback"

// Registration is the body the harness registers a client with: the
// redirect_uris source section 4 requires, and a name that lets a person
// recognise the client on a consent page.
func Registration(clientName string) map[string]any {
	return map[string]any{"client_name": clientName, "redirect_uris": []string{RedirectURI}}
}

// Device runs the device grant to completion and returns the access token.
// Polling follows RFC 8628 section 3.5: wait the interval, keep polling on
// authorization_pending, add five seconds on slow_down. The wait between
// polls goes through sleep, so a caller with a controllable clock need not
// wait in real time.
func Device(ctx context.Context, oc *oauthclient.Client, approve target.Approver, sleep func(context.Context, time.Duration) error) (string, error) {
	reg, err := oc.Register(ctx, Registration("conform"))
	if err != nil {
		return "", fmt.Errorf("register: %w", err)
	}
	clientID, ok := reg.String("client_id")
	if reg.Status/100 != 2 || !ok {
		return "", fmt.Errorf("register: HTTP %d: %s", reg.Status, reg.Body)
	}
	da, err := oc.DeviceAuthorize(ctx, clientID, nil)
	if err != nil {
		return "", fmt.Errorf("device authorization: %w", err)
	}
	deviceCode, _ := da.String("device_code")
	userCode, _ := da.String("user_code")
	if da.Status != 200 || deviceCode == "" || userCode == "" {
		return "", fmt.Errorf("device authorization: HTTP %d: %s", da.Status, da.Body)
	}
	var interval time.Duration
	if v, ok := da.JSON["interval"].(float64); ok && v > 0 {
		interval = time.Duration(v) * time.Second
	}
	if err := approve(ctx, userCode); err != nil {
		return "", err
	}
	// The grant's name is the one the host takes (DeviceGrant): the source
	// says device_code, RFC 8628 the URN.
	polls := 0
	stop := func() error {
		if polls++; polls > maxPolls {
			return fmt.Errorf("token: still pending after %d polls", maxPolls)
		}
		return nil
	}
	form := url.Values{"device_code": {deviceCode}, "client_id": {clientID}}
	access, err := oc.DeviceGrant().Poll(ctx, form, interval, sleep, stop)
	if err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	return access, nil
}

// maxPolls bounds the polls after an approval: an approved sign-in that
// still answers authorization_pending this often is not going to complete.
const maxPolls = 20
