// Package fakeauthz is a fake MCP server protected by OAuth, with its
// authorization server on another origin, for proving the mcp-authorization
// pack able to fail (a Break per requirement) and proving it demands nothing
// the MCP specification leaves open: where the specification allows a choice
// the fake chooses unlike the reference host. It keeps MCP sessions and
// answers over SSE; it serves the protected resource metadata only at the
// MCP endpoint's path; its challenge names a scope; its authorization server
// has an issuer with a path and offers only OpenID Connect Discovery.
package fakeauthz

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/target"
)

// Scopes the fake's tools need: listing needs tools, calling needs write,
// and under ScopeChallengeIncremental admin besides.
const (
	ScopeTools = "mcp:tools"
	ScopeWrite = "mcp:write"
	ScopeAdmin = "mcp:admin"
)

// Host is a running fake: the MCP server and its authorization server.
type Host struct {
	// RS serves the MCP endpoint and its metadata; AS the authorization server.
	RS, AS *httptest.Server
	// rsURL and asURL are RS's and AS's URLs, set before either serves.
	rsURL, asURL string
	breaks       map[Break]bool

	mu sync.Mutex
	// served counts the MCP server's requests, for StopsAnswering.
	served   int
	tokens   map[string]grant
	sessions map[string]string   // Mcp-Session-Id → the subject of the token that opened it
	clients  map[string][]string // client_id → redirect URIs
	native   map[string]bool     // client_id → registered as application_type native
	secrets  map[string]string   // client_id → client_secret, for confidential clients
	// anyLoopback are the clients registered beforehand (Preregister),
	// which take any loopback redirect URI.
	anyLoopback map[string]bool
	// documents fetches client ID metadata documents (FetchDocumentsWith);
	// nil for http.DefaultClient.
	documents *http.Client
	// rotated maps a refresh token rotated out, or revoked with its grant,
	// to its grant's family, which a replay of it revokes (OAuth 2.1 4.3.1).
	rotated map[string]string
	// registered counts the registrations accepted, for the tests that hold
	// the pack to registering as few clients as it can.
	registered int
	// tokenRequests counts the token requests, for TokenThrottledBriefly,
	// and tokensThrottled those it refused.
	tokenRequests, tokensThrottled int
	codes                          map[string]*code
	refresh                        map[string]grant
}

// grant is what a token stands for: a client's authorization of a subject
// (a user; "" for every token but MintFor's) for a resource and scope. The
// tokens of one authorization code and of its refreshes share a family.
type grant struct {
	clientID, subject, resource, scope, family string
	expired                                    bool
}

// The confidential client registered beforehand with the default redirect
// URI, for ConfidentialOnly and a profile's client_id and secret.
const (
	ConfidentialID     = "conform-confidential"
	ConfidentialSecret = "s3cret-for-conform"
)

// OtherUser is the subject of the target's token of another user, whom a
// session opened for the credential's user is refused (unless SessionUnbound).
const OtherUser = "conform-other-user"

// SecondID is a second public client registered beforehand with the default
// redirect URI, for a profile's second_client_id.
const SecondID = "conform-second"

// Start runs a fake with the given departures.
func Start(breaks ...Break) *Host {
	h := newHost(breaks)
	h.serve(httptest.NewUnstartedServer(http.HandlerFunc(h.serveResource)), httptest.NewUnstartedServer(http.HandlerFunc(h.serveAuthorization)))
	return h
}

// newHost is a fake that departs in breaks and what they imply, with its
// clients registered beforehand, not yet serving.
func newHost(breaks []Break) *Host {
	h := &Host{breaks: map[Break]bool{}, tokens: map[string]grant{}, sessions: map[string]string{},
		clients: map[string][]string{}, native: map[string]bool{}, secrets: map[string]string{}, anyLoopback: map[string]bool{},
		rotated: map[string]string{}, codes: map[string]*code{}, refresh: map[string]grant{}}
	for _, b := range breaks {
		h.breaks[b] = true
		for _, also := range implies[b] {
			h.breaks[also] = true
		}
	}
	h.clients[ConfidentialID] = []string{profile.Default("").MCPAuthorization.RedirectURI}
	if h.breaks[ConfidentialOnly] {
		h.secrets[ConfidentialID] = ConfidentialSecret
	}
	h.clients[SecondID] = []string{profile.Default("").MCPAuthorization.RedirectURI}
	return h
}

// serve starts rs and as, unstarted servers whose listeners are open. Both
// URLs are known before either serves, since each handler reads both; the
// handlers read them from the Host, never from a server whose Start is
// still setting its own.
func (h *Host) serve(rs, as *httptest.Server) {
	h.RS, h.AS = rs, as
	h.rsURL = "http://" + h.RS.Listener.Addr().String()
	h.asURL = "http://" + h.AS.Listener.Addr().String()
	h.RS.Start()
	h.AS.Start()
}

// Close stops both servers.
func (h *Host) Close() {
	h.RS.Close()
	h.AS.Close()
}

// Endpoint is the MCP endpoint, the resource the fake's tokens are for.
func (h *Host) Endpoint() string {
	if h.path() == "/" {
		// The canonical form has no trailing slash (authorization, Canonical
		// Server URI); the request goes to the root path.
		return h.rsURL
	}
	return h.rsURL + h.path()
}

// Registered is how many registrations the authorization server accepted.
func (h *Host) Registered() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.registered
}

// TokensThrottled is how many token requests the authorization server
// refused 429, for the tests that hold the pack to waiting them out.
func (h *Host) TokensThrottled() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tokensThrottled
}

// Issuer is the authorization server's issuer identifier, with a path.
func (h *Host) Issuer() string { return h.asURL + "/tenant" }

// Mint issues a token directly, as the authorization server would have.
func (h *Host) Mint(resource, scope string, expired bool) string {
	t := random()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tokens[t] = grant{resource: resource, scope: scope, expired: expired}
	return t
}

// mintReadable issues a token directly as a JWT (unsigned: only the fake
// reads it back, by value) that says its audience and scope, as servers
// issuing RFC 9068 access tokens do: a client can read the scope its
// limited token holds.
func (h *Host) mintReadable(resource, scope string) string {
	body, _ := json.Marshal(map[string]any{"aud": resource, "scope": scope})
	enc := base64.RawURLEncoding.EncodeToString
	t := enc([]byte(`{"alg":"none"}`)) + "." + enc(body) + "." + random()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tokens[t] = grant{resource: resource, scope: scope}
	return t
}

// MintFor issues a token directly for a client and a subject, as the
// authorization server would have after that client's authorization by that
// user: for ReauthorizationRevokes, a credential the run's later
// authorizations of the same client revoke, and for SessionUnbound, a second
// user's token.
func (h *Host) MintFor(clientID, subject, resource, scope string) string {
	t := random()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tokens[t] = grant{clientID: clientID, subject: subject, resource: resource, scope: scope}
	return t
}

// Target is the target a profile for this fake would give: every request
// needs a token (tools/list is the request that needs authorization, a
// tools/call the one that needs more scope), tokens of every kind the pack
// presents (another user's among them), and an approver that follows the authorization server's redirect
// (it asks no person).
func (h *Host) Target() *target.Target {
	p := profile.Default(h.rsURL)
	p.MCPEndpoint = h.Endpoint()
	p.MCPAuthorization.ProtectedRequest = profile.Request{Method: "tools/list"}
	p.MCPAuthorization.ScopedRequest = &profile.Request{Method: "tools/call", Params: map[string]any{"name": "echo", "arguments": map[string]any{}}}
	t := target.FromProfile(p)
	t.HTTP = &http.Client{}
	t.Credential = h.Mint(h.Endpoint(), ScopeTools+" "+ScopeWrite, false)
	t.Tokens = target.Tokens{
		Expired: h.Mint(h.Endpoint(), ScopeTools+" "+ScopeWrite, true),
		// Minted expired: the evidence TOK-4 needs, as a profile states it.
		ExpiredAt:     time.Now(),
		OtherResource: h.Mint("https://other.example/mcp", ScopeTools+" "+ScopeWrite, false),
		Limited:       h.mintReadable(h.Endpoint(), ScopeTools),
		OtherUser:     h.MintFor("", OtherUser, h.Endpoint(), ScopeTools+" "+ScopeWrite),
	}
	t.ApproveAuthorization = approver(t.HTTP)
	return t
}

func random() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
