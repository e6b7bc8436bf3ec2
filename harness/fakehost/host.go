// Package fakehost is a small tool host written from the source document
// alone, for testing the harness: compliant by default, and able to depart
// from one requirement at a time (a Break) so that tests can prove each check
// of the suite fails for the right reason. It shares no code with the
// reference host in impl/, and it makes different choices wherever the source
// says "not shown" (tool result shapes, the gate 4 error code), so that a
// check that passes against both does not lean on one host's choices.
//
// A host made with MCPOptions.Other (and OAuthOptions.Other) is a second
// compliant host that chooses differently again where the source is silent:
// only afs_read is on its anonymous allowlist, its anonymous tools/list hides
// the tools anonymous callers cannot call, afs_stat answers JSON text, gate 4
// has another code and text, the device grant goes only by RFC 8628's name
// (advertised in its authorization server metadata), and a throttled
// registration is a 503 with Retry-After.
//
// The MCP endpoint lives here; OAuth endpoints are added to the same Mux by
// their own file.
package fakehost

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"slices"
	"sync"
)

// Mode is how the host speaks the MCP streamable HTTP transport. The source
// document does not show the transport (section 4, "Gaps"), so the harness
// must work with each of these.
type Mode string

// The transport modes.
const (
	// JSON answers every request with one application/json body, statelessly.
	JSON Mode = "json"
	// SSE answers requests with a text/event-stream that sends a notification
	// event before the response event.
	SSE Mode = "sse"
	// Sessions issues an Mcp-Session-Id on initialize and refuses, with 400,
	// a call that carries none once the gates have let it through.
	Sessions Mode = "sessions"
	// Modern speaks only MCP 2026-07-28: once the gates have let a request
	// through, it checks the mirrored headers and _meta (package
	// fakeprotocol) and has no initialize; JSON replies, no sessions.
	Modern Mode = "2026-07-28"
	// Older speaks only the revisions before 2026-07-28: a 2026-07-28
	// version header is a 400; JSON replies, no sessions.
	Older Mode = "2025"
)

// MCPOptions configure the MCP side of a fake host.
type MCPOptions struct {
	// Mode is the transport mode; JSON when empty.
	Mode Mode
	// Breaks are the departures from the source document to make.
	Breaks []Break
	// Collections declares content collections, which puts the content tools
	// in tools/list (source section 1).
	Collections bool
	// Other makes the other choice wherever the source says "not shown"
	// (see Other); a compliant host either way.
	Other bool
}

// Host is one fake tool host instance. It is safe for concurrent use.
type Host struct {
	opts       MCPOptions
	mux        *http.ServeMux
	credential string
	peer       string

	mu       sync.Mutex
	files    map[string]string
	sessions map[string]bool
	// issued are the credentials the device grant issued here, each with
	// what says whether it still holds (nil: for ever).
	issued map[string]func() bool
}

// New returns a fake host with a fresh credential, a fresh peer credential
// and the default tree (see tree.go).
func New(opts MCPOptions) *Host {
	if opts.Mode == "" {
		opts.Mode = JSON
	}
	h := &Host{
		opts:       opts,
		mux:        http.NewServeMux(),
		credential: token(),
		peer:       token(),
		files:      initialFiles(),
		sessions:   map[string]bool{},
		issued:     map[string]func() bool{},
	}
	h.mux.HandleFunc("POST /mcp", h.serveMCP)
	h.mux.HandleFunc("GET /.well-known/mcp.json", h.serveDiscovery)
	return h
}

// Handler returns the host's HTTP handler.
func (h *Host) Handler() http.Handler { return h.mux }

// Mux returns the host's router, so that more endpoints (OAuth) can be served
// by the same instance. The MCP side registers "POST /mcp" and
// "GET /.well-known/mcp.json".
func (h *Host) Mux() *http.ServeMux { return h.mux }

// Credential returns the one credential this instance accepts, as a bare
// bearer token. It carries the owner role.
func (h *Host) Credential() string { return h.credential }

// Issue mints a credential this instance accepts while valid says so (nil:
// for ever), as its device grant issues one (source 2: bound to the issuing
// instance).
func (h *Host) Issue(valid func() bool) string {
	tok := token()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.issued[tok] = valid
	return tok
}

func (h *Host) issuedCredential(tok string) (func() bool, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	valid, ok := h.issued[tok]
	return valid, ok
}

// PeerCredential returns a credential issued by another instance of the same
// host software, which this instance must refuse (source section 5.2).
func (h *Host) PeerCredential() string { return h.peer }

func (h *Host) broken(b Break) bool { return slices.Contains(h.opts.Breaks, b) }

// token returns a random bearer token, long enough that masking finds it.
func token() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24 and later)
	return "fake-" + hex.EncodeToString(b)
}
