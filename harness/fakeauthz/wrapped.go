package fakeauthz

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
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

// Listen opens the listener of one of StartWrapped's servers; its caller
// chooses the port.
type Listen func() (net.Listener, error)

// StartWrapped runs a fake like Start, each server's handler wrapped and
// listening where listen says: the client half's scripted servers record
// what a client sends and script departures the fake's own breaks do not
// make, in front of the same fake.
func StartWrapped(wrap Wrap, listen Listen, breaks ...Break) (*Host, error) {
	h := newHost(breaks)
	unstarted := func(origin Origin, serve http.HandlerFunc) (*httptest.Server, error) {
		l, err := listen()
		if err != nil {
			return nil, err
		}
		s := httptest.NewUnstartedServer(wrap(origin, serve))
		_ = s.Listener.Close()
		s.Listener = l
		return s, nil
	}
	rs, err := unstarted(MCPOrigin, h.serveResource)
	if err != nil {
		return nil, fmt.Errorf("listen for the fake's MCP server: %w", err)
	}
	as, err := unstarted(ASOrigin, h.serveAuthorization)
	if err != nil {
		_ = rs.Listener.Close()
		return nil, fmt.Errorf("listen for the fake's authorization server: %w", err)
	}
	h.serve(rs, as)
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

// Preregister makes id a client registered beforehand, as an MCP client's
// user may have registered one by hand (Client Registration: "Pre-
// registration"), with secret when it is confidential. Its redirect URI is
// not known here, since the client picks its loopback listener itself: any
// http redirect URI on a loopback host is taken for it (OAuth 2.1 8.4.2).
func (h *Host) Preregister(id, secret string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.clients[id] = nil
	h.anyLoopback[id] = true
	if secret != "" {
		h.secrets[id] = secret
	}
}

// FetchDocumentsWith has the authorization server fetch client ID metadata
// documents with c: a test's documents are served over TLS that only c
// trusts. The fetch still bounds its own time.
func (h *Host) FetchDocumentsWith(c *http.Client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.documents = c
}

// loopbackRedirect says whether u is an http redirect URI on a loopback
// host: a loopback IP literal, or localhost (MCP security.3).
func loopbackRedirect(u string) bool {
	p, err := url.Parse(u)
	return err == nil && p.Scheme == "http" && loopbackHost(p.Hostname())
}
