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
	"github.com/conform-mcp/conform/harness/registrations"
	"github.com/conform-mcp/conform/harness/target"
)

// Device signs in with the client kept in kept from an earlier run, or
// registers one and keeps it there (source 7.3: a client registers once and
// keeps its client_id), runs the device grant to completion with approve
// handed the user code, and returns the access token. A kept client the
// host refuses is forgotten and registered anew (source 3: an unused
// registration is removed after seven days, and the client registers
// again). The wait between polls goes through sleep, so a caller with a
// controllable clock need not wait in real time. A nil kept keeps nothing.
func Device(ctx context.Context, oc *oauthclient.Client, approve target.Approver, sleep func(context.Context, time.Duration) error, kept *registrations.Store) (string, error) {
	key := registrations.Key{Server: oc.RegistrationEndpoint(), RedirectURI: oauthclient.DeviceRedirectURI, Use: registrations.DeviceSignIn}
	c, _, _ := kept.Get(key)
	s := oauthclient.DeviceSignIn{
		Client:     oc,
		ClientName: "conform",
		ClientID:   c.ID,
		Registered: func(id string) error { kept.Keep(key, registrations.Client{ID: id}); return nil },
		Forgotten:  func(id string) { kept.Forget(key, id) },
		Present:    func(ctx context.Context, da *oauthclient.DeviceAuthorization) error { return approve(ctx, da.UserCode) },
		Sleep:      sleep,
		MaxPolls:   maxPolls,
	}
	token, err := s.Run(ctx)
	if err == nil {
		kept.Confirm(key, s.ClientID)
	}
	return token, err
}

// maxPolls bounds the polls after an approval: an approved sign-in that
// still answers authorization_pending this often is not going to complete.
const maxPolls = 20
