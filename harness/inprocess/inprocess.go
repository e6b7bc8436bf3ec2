// Package inprocess starts the reference host inside the conform process: two
// instances (the target and its peer, for instance binding), sharing a clock
// the suite controls, each with its own store, and a credential from each
// obtained through the real device grant and consent page, approved with
// each instance's owner secret (PRODUCT.md section 8). It is what
// `conform run` drives when given no target.
package inprocess

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"time"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/signin"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/impl/clock"
	"github.com/conform-mcp/conform/impl/config"
	"github.com/conform-mcp/conform/impl/host"
	"github.com/conform-mcp/conform/impl/owner"
)

// instance is one running reference host.
type instance struct {
	host   *host.Host
	server *httptest.Server
	// ownerSecret lets the harness approve sign-ins as the host's owner.
	ownerSecret string
}

func (i *instance) close() error {
	i.server.Close()
	return i.host.Close()
}

// startInstance opens a host in a temporary data directory, where it
// creates its own random owner secret; the harness reads it from the file,
// as the host's owner would. A secret the harness made and gave would be
// judged by the strength estimator, whose dictionaries cost every run tens
// of milliseconds to build and consult (package owner/strength).
func startInstance(cfg config.Config, clk *clock.Manual) (*instance, error) {
	h, err := host.Open(cfg, host.OpenOptions{Clock: clk})
	if err != nil {
		return nil, err
	}
	secret, err := owner.Read(filepath.Dir(h.OwnerSecretFile()), "", nil)
	if err != nil {
		return nil, errors.Join(err, h.Close())
	}
	return &instance{host: h, server: httptest.NewServer(h.Handler()), ownerSecret: secret}, nil
}

// Start runs the target and peer instances and signs in to both. The
// returned function stops them and removes their data.
func Start(ctx context.Context) (*target.Target, func(), error) {
	cfg, err := config.Default()
	if err != nil {
		return nil, nil, err
	}
	// Whole seconds keep reports and windows easy to read.
	clk := clock.NewManual(time.Now().UTC().Truncate(time.Second))
	main, err := startInstance(cfg, clk)
	if err != nil {
		return nil, nil, fmt.Errorf("target instance: %w", err)
	}
	peer, err := startInstance(cfg, clk)
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("peer instance: %w", err), main.close())
	}
	stop := func() { _ = errors.Join(main.close(), peer.close()) }

	hc := &http.Client{Timeout: 30 * time.Second}
	p := profile.Default(main.server.URL)
	// The reference host lets anonymous callers list tools (source 5.3): its
	// request that needs a token is the privileged write.
	p.MCPAuthorization.ProtectedRequest = profile.WriteRequest(p.Tools, p.Paths)
	p.Peer = &profile.Peer{Target: peer.server.URL}
	t := &target.Target{
		Profile:   p,
		Clock:     clk,
		Approve:   consentApprover(main.server.URL, main.ownerSecret, hc),
		HTTP:      hc,
		InProcess: true,
	}
	// The harness waits between polls by moving the shared clock on.
	advance := func(_ context.Context, d time.Duration) error { clk.Advance(d); return nil }
	if t.Credential, err = signIn(ctx, p, main.server.URL, t.Approve, hc, advance); err != nil {
		stop()
		return nil, nil, fmt.Errorf("sign in to the target instance: %w", err)
	}
	if t.PeerCredential, err = signIn(ctx, p, peer.server.URL, consentApprover(peer.server.URL, peer.ownerSecret, hc), hc, advance); err != nil {
		stop()
		return nil, nil, fmt.Errorf("sign in to the peer instance: %w", err)
	}
	t.ApproveAuthorization = roleApprover(hc, main.server.URL, main.ownerSecret, "")
	if err := authorizationTokens(ctx, t, clk, main.ownerSecret); err != nil {
		stop()
		return nil, nil, err
	}
	return t, stop, nil
}

// authorizationTokens gives the target the tokens the mcp-authorization pack
// presents. The peer's credential was issued by another authorization server
// for another resource, the peer's MCP endpoint. The expired token comes from
// the authorization code flow, whose tokens expire, and the shared clock then
// moves past its lifetime; a device-grant credential never expires (source
// section 2), so nothing else the suite holds is touched. The limited token
// is a member's: it may make the profile's privileged write, which shows it
// valid, and lacks the scope of a delete, the request that needs more; it is
// also the token of another user than the credential's.
func authorizationTokens(ctx context.Context, t *target.Target, clk *clock.Manual, ownerSecret string) error {
	t.Tokens.OtherResource = t.PeerCredential
	base := t.Profile.Target
	flow := oauthclient.CodeFlow{HTTP: t.HTTP, Approve: t.ApproveAuthorization, RedirectURI: t.Profile.MCPAuthorization.RedirectURI}
	tok, err := flow.Obtain(ctx, base, base+"/mcp")
	if err != nil {
		return fmt.Errorf("obtain a token through the authorization code flow: %w", err)
	}
	access, _ := tok["access_token"].(string)
	lifetime, ok := tok["expires_in"].(float64)
	if access == "" || !ok || lifetime <= 0 {
		return fmt.Errorf("the authorization code flow issued no access_token with expires_in")
	}
	clk.Advance(time.Duration(lifetime)*time.Second + time.Second)
	// Expired on the host's clock by now: the evidence TOK-4 needs.
	t.Tokens.Expired, t.Tokens.ExpiredAt = access, time.Now()
	// A member's token, issued after the clock moved, holds afs:read and
	// afs:write but not afs:delete (PRODUCT.md section 6: roles).
	flow.Approve = roleApprover(t.HTTP, base, ownerSecret, "member")
	limited, err := flow.Obtain(ctx, base, base+"/mcp")
	if err != nil {
		return fmt.Errorf("obtain a member's token through the authorization code flow: %w", err)
	}
	t.Profile.MCPAuthorization.ScopedRequest = &profile.Request{Method: "tools/call", Params: map[string]any{
		"name": "afs_delete", "arguments": map[string]any{"path": t.Profile.Paths.Writable},
	}}
	t.Tokens.Limited, _ = limited["access_token"].(string)
	t.Tokens.LimitedScope, _ = limited["scope"].(string)
	// The member is another user than the owner whose credential the run
	// holds, and the member's token is valid: it is the other user's too.
	t.Tokens.OtherUser = t.Tokens.Limited
	return nil
}

func signIn(ctx context.Context, p profile.Profile, base string, approve target.Approver, hc *http.Client, wait func(context.Context, time.Duration) error) (string, error) {
	oc := oauthclient.New(base, p.OAuth.Endpoints(), hc)
	// Both instances are new to this run: there is no client to keep.
	return signin.Device(ctx, oc, approve, wait, nil)
}
