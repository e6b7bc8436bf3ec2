// Package credentials obtains what a run presents when the user did not
// supply it: a credential conform login stored, a device-grant sign-in
// through the profile's approval command (the source pack), tokens from the
// authorization code flow (the mcp-authorization pack). Whatever stays
// missing makes the scenarios that need it not run, with the reason.
package credentials

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/conform-mcp/conform/harness/login"
	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/signin"
	"github.com/conform-mcp/conform/harness/target"
)

// Device completes an external target's credentials: from the environment
// first (target.FromProfile), then from what conform login stored, then,
// when the profile names a device approval command, by signing in through
// the device grant. It says on log what it used and what failed.
func Device(ctx context.Context, t *target.Target, stderr io.Writer) {
	p := t.Profile
	if t.Credential == "" {
		if c, ok := login.StoredCredential(t.StateDir, p.Target); ok {
			t.Credential = c
			t.CredentialSource = "the credential conform login stored for " + p.Target
			fmt.Fprintf(stderr, "conform: using the credential conform login stored for %s\n", p.Target)
		}
	}
	cmd := p.OAuth.DeviceApprovalCommand
	if cmd == "" {
		return
	}
	// The two sign-ins are independent, each a handful of round trips and
	// an approval command: they go at once.
	var wg sync.WaitGroup
	log := &lockedWriter{w: stderr}
	if t.Credential == "" {
		wg.Go(func() { t.Credential = signInTo(ctx, t, p.Target, t.Approve, log) })
	}
	if p.Peer != nil && t.PeerCredential == "" {
		wg.Go(func() {
			t.PeerCredential = signInTo(ctx, t, p.Peer.Target, target.CommandApprover(cmd, p.Peer.Target), log)
		})
	}
	wg.Wait()
}

// lockedWriter lets the sign-ins that go at once write their lines whole.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// signInTo signs in through the run's own HTTP client, so that the user's
// connection flags (a gateway's headers, --insecure, --timeout, -v) hold for
// the sign-in as for every other request, with the client kept for base
// from an earlier run, if any.
func signInTo(ctx context.Context, t *target.Target, base string, approve target.Approver, stderr io.Writer) string {
	oc := oauthclient.New(base, t.Profile.OAuth.Endpoints(), t.HTTP)
	token, err := signin.Device(ctx, oc, approve, target.Sleep, t.Clients)
	if err != nil {
		fmt.Fprintf(stderr, "conform: could not sign in to %s with the device approval command: %v\n", base, err)
		return ""
	}
	fmt.Fprintf(stderr, "conform: signed in to %s through the device grant\n", base)
	return token
}

// WarnEmpty says once, before anything is sent, that a variable
// the profile names for a credential is set but empty: usually a CI secret
// that did not reach the job. The run goes on (with a stored or signed-in
// credential if there is one, else without), but the cause is told up front
// rather than left to be guessed from a list of not-run scenarios.
func WarnEmpty(p profile.Profile, stderr io.Writer) {
	check := func(key, name string) {
		if v, set := os.LookupEnv(name); set && v == "" {
			fmt.Fprintf(stderr, "conform: warning: %s names %s, which is set but empty; conform uses a credential conform login stored or one it signs in for, if it has one, else the scenarios that need it are not run\n", key, name)
		}
	}
	if p.CredentialEnv != "" {
		check("credential_env", p.CredentialEnv)
	}
	if p.Peer != nil && p.Peer.CredentialEnv != "" {
		check("peer.credential_env", p.Peer.CredentialEnv)
	}
}
