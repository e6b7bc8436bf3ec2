package fakeauthz

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/conform-mcp/conform/harness/profile"
)

// Origin names which of the fake's two servers a request reached.
type Origin string

// The fake's two origins.
const (
	// MCPOrigin is the MCP server (the protected resource).
	MCPOrigin Origin = "mcp"
	// ASOrigin is the authorization server, on another origin.
	ASOrigin Origin = "as"
)

// Wrap puts a handler of the caller's in front of one of the fake's
// servers; next is the fake's own.
type Wrap func(origin Origin, next http.Handler) http.Handler

// Serve starts an unstarted server; StartWrapped's caller chooses how (on
// which listener).
type Serve func(*httptest.Server) error

// StartWrapped runs a fake like Start, each server's handler wrapped: the
// client half's scripted servers record what a client sends and script
// departures the fake's own breaks do not make, in front of the same fake.
// start starts each of its two servers.
func StartWrapped(wrap Wrap, start Serve, breaks ...Break) (*Host, error) {
	h := &Host{breaks: map[Break]bool{}, tokens: map[string]grant{}, sessions: map[string]bool{},
		clients: map[string][]string{}, native: map[string]bool{}, codes: map[string]*code{}, refresh: map[string]grant{}}
	for _, b := range breaks {
		h.breaks[b] = true
	}
	h.clients[ConfidentialID] = []string{profile.Default("").MCPAuthorization.RedirectURI}
	h.clients[SecondID] = []string{profile.Default("").MCPAuthorization.RedirectURI}
	h.RS = httptest.NewUnstartedServer(wrap(MCPOrigin, http.HandlerFunc(h.serveResource)))
	h.AS = httptest.NewUnstartedServer(wrap(ASOrigin, http.HandlerFunc(h.serveAuthorization)))
	if err := start(h.RS); err != nil {
		return nil, fmt.Errorf("start the fake's MCP server: %w", err)
	}
	if err := start(h.AS); err != nil {
		h.RS.Close()
		return nil, fmt.Errorf("start the fake's authorization server: %w", err)
	}
	return h, nil
}

// MetadataPath is the path at which the fake serves its protected resource
// metadata.
func (h *Host) MetadataPath() string { return h.metadataPath() }

// Narrow makes an issued token stand for scope alone, as an authorization
// server that grants only the scope a request asked for would have issued
// it: the client half's step-up scenario needs a first token that lacks
// the scope a tools/call needs.
func (h *Host) Narrow(token, scope string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if g, ok := h.tokens[token]; ok {
		g.scope = scope
		h.tokens[token] = g
	}
}

// ExpireIssued makes every access token issued so far expired, as time
// would; refresh tokens still hold. The client half uses it to see a client
// refresh, or sign in again, when its token stops working.
func (h *Host) ExpireIssued() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for t, g := range h.tokens {
		g.expired = true
		h.tokens[t] = g
	}
}
