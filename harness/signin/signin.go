// Package signin obtains a credential from a host through the device grant
// (RFC 8628) without a person: oauthclient's DeviceSignIn, with an approver
// standing in at the verification URI. The harness uses it for the
// in-process reference host and for targets whose profile names a device
// approval command.
package signin

import (
	"context"
	"time"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/target"
)

// Device registers a client, runs the device grant to completion with
// approve handed the user code, and returns the access token. The wait
// between polls goes through sleep, so a caller with a controllable clock
// need not wait in real time.
func Device(ctx context.Context, oc *oauthclient.Client, approve target.Approver, sleep func(context.Context, time.Duration) error) (string, error) {
	s := oauthclient.DeviceSignIn{
		Client:     oc,
		ClientName: "conform",
		Present:    func(ctx context.Context, da *oauthclient.DeviceAuthorization) error { return approve(ctx, da.UserCode) },
		Sleep:      sleep,
		MaxPolls:   maxPolls,
	}
	return s.Run(ctx)
}

// maxPolls bounds the polls after an approval: an approved sign-in that
// still answers authorization_pending this often is not going to complete.
const maxPolls = 20
