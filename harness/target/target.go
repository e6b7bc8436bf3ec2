// Package target is what a run drives: a profile plus what the harness can do
// to that host beyond plain HTTP (control its clock, approve a sign-in), and
// the capabilities scenarios may need.
package target

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/registrations"
)

// Clock is a host clock the harness controls (only an in-process host has one).
type Clock interface {
	Advance(d time.Duration)
}

// Approver approves a pending device authorization by its user code, standing
// in for the person at the verification URI.
type Approver func(ctx context.Context, userCode string) error

// Target is one host under test and the means to drive it.
type Target struct {
	Profile profile.Profile
	// Credential and PeerCredential are whole bearer tokens, or "".
	Credential     string
	PeerCredential string
	// CredentialSource and PeerCredentialSource say where a credential the
	// user supplied came from ("the credential in CONFORM_CREDENTIAL"), so
	// that a refused one is named; "" when the harness obtained it itself.
	CredentialSource     string
	PeerCredentialSource string
	// CredentialUnobtained says why the harness, trying to obtain the
	// credential itself, could not; "" when it did or never tried. What
	// needs the credential names it as the cause.
	CredentialUnobtained string
	// Clock is nil unless the harness controls the host's clock.
	Clock Clock
	// Approve is nil unless a sign-in can be approved without a person.
	Approve Approver
	// ApproveAuthorization is nil unless an authorization request can be
	// approved without a person (the mcp-authorization pack).
	ApproveAuthorization AuthorizationApprover
	// Tokens are the mcp-authorization pack's extra tokens.
	Tokens Tokens
	// HTTP is the client every request goes through.
	HTTP *http.Client
	// InProcess is true for the embedded reference host.
	InProcess bool
	// StateDir is where conform keeps what it stored for targets (conform
	// login's credentials); "" for the default.
	StateDir string
	// Clients are the clients conform registered with the target's
	// authorization servers in earlier runs, kept for later ones; nil keeps
	// none.
	Clients *registrations.Store
}

// FromProfile builds the target for an external host: credentials from the
// environment variables the profile names, approval through the profile's
// command, and no clock control.
func FromProfile(p profile.Profile) *Target {
	t := &Target{
		Profile:        p,
		Credential:     p.Credential(),
		PeerCredential: p.PeerCredential(),
		HTTP:           &http.Client{Timeout: 30 * time.Second},
	}
	if t.Credential != "" {
		t.CredentialSource = "the credential in " + p.CredentialEnv
	}
	if t.PeerCredential != "" {
		t.PeerCredentialSource = "the credential in " + p.Peer.CredentialEnv
	}
	if cmd := p.OAuth.DeviceApprovalCommand; cmd != "" {
		t.Approve = CommandApprover(cmd, p.Target)
	}
	if cmd := p.OAuth.AuthorizationApprovalCommand; cmd != "" {
		t.ApproveAuthorization = CommandAuthorizationApprover(cmd, p.Target)
	}
	a := p.MCPAuthorization
	t.Tokens = Tokens{Expired: a.ExpiredToken(), ExpiredAt: a.ExpiredAt(), OtherResource: a.OtherResourceToken(), Limited: a.LimitedToken(), OtherUser: a.OtherUserToken()}
	return t
}

// CommandApprover runs a device approval command with {user_code} and
// {target} (the base URL of the host signed in to) replaced. Both are passed
// as arguments of sh, never spliced into the script, so a hostile user code
// cannot run commands.
func CommandApprover(command, base string) Approver {
	script := strings.ReplaceAll(command, "{user_code}", `"$1"`)
	script = strings.ReplaceAll(script, "{target}", `"$2"`)
	return func(ctx context.Context, userCode string) error {
		_, err := runCommand(ctx, "device_approval_command", script, "conform-approve", userCode, base)
		return err
	}
}

// Capability names, used as scenario tags "@needs-<capability>".
const (
	NeedsCredential = "credential"
	NeedsPeer       = "peer"
	NeedsClock      = "clock"
	NeedsTime       = "time"
	NeedsApproval   = "approval"
)

// Lacks returns why the target cannot meet a capability, naming the missing
// profile key, or "" when it can. An unknown capability is reported as such.
func (t *Target) Lacks(capability string) string {
	p := t.Profile
	switch capability {
	case NeedsCredential:
		if t.Credential == "" && t.CredentialUnobtained != "" {
			return fmt.Sprintf("needs a credential, which the harness could not obtain itself: %s; mend that, or set credential_env (now %q) to a variable holding one this host issued",
				t.CredentialUnobtained, p.CredentialEnv)
		}
		if t.Credential == "" {
			return fmt.Sprintf("needs a credential: set credential_env (now %q) to a variable holding one this host issued, or run conform login", p.CredentialEnv)
		}
	case NeedsPeer:
		switch {
		case p.Peer == nil && t.PeerCredential == "":
			return "needs a second instance of the host: set peer.target and peer.credential_env"
		case t.PeerCredential == "":
			return fmt.Sprintf("needs a credential issued by the peer: set peer.credential_env (now %q)", p.Peer.CredentialEnv)
		}
	case NeedsClock:
		if t.Clock == nil {
			return "needs control of the host's clock (only the in-process reference host offers it); waiting in real time would take days"
		}
	case NeedsTime:
		if t.Clock == nil && !p.Slow {
			return "waits in real time: set slow: true in the profile to allow it"
		}
	case NeedsApproval:
		if t.Approve == nil {
			return "needs a device sign-in approved without a person: set oauth.device_approval_command"
		}
	default:
		if reason, known := t.lacksAuthorization(capability); known {
			return reason
		}
		return fmt.Sprintf("unknown capability %q (a harness bug)", capability)
	}
	return ""
}

// Wait lets d pass on the host's clock: advanced at once when the harness
// controls it, otherwise in real time (only when the profile allows slow
// scenarios). It reports how long it will take through announce.
func (t *Target) Wait(ctx context.Context, d time.Duration, announce func(string, time.Duration)) error {
	if t.Clock != nil {
		t.Clock.Advance(d)
		return nil
	}
	if !t.Profile.Slow {
		return fmt.Errorf("real-time wait of %s without slow: true", d)
	}
	if announce != nil {
		announce("waiting in real time on the host's clock", d)
	}
	return Sleep(ctx, d)
}

// Sleep waits d in real time, or until ctx ends: the wait for hosts whose
// clock the harness does not control.
func Sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Name is the target as the pack takes it, for reports and messages: the
// MCP endpoint when the pack takes the URL as one (mcp-authorization), else
// the base URL.
func (t *Target) Name() string {
	if t.Profile.MCPEndpoint != "" {
		return t.Profile.MCPEndpoint
	}
	return t.Profile.Target
}

// URL joins the target's base URL and a path.
func (t *Target) URL(path string) string { return t.Profile.Target + path }

// Endpoint is the MCP endpoint: the profile's when it names one (the
// mcp-authorization pack), else {target}/mcp (source 1).
func (t *Target) Endpoint() string {
	if t.Profile.MCPEndpoint != "" {
		return t.Profile.MCPEndpoint
	}
	return t.URL("/mcp")
}
