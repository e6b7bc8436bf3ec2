package fakeauthz

// Break names one departure from the mcp-authorization pack. Each breaks the
// requirement its comment names and nothing else the host does.
type Break string

// The departures of the MCP server (the protected resource).
const (
	// MetadataWithoutServers serves authorization_servers empty (PRM-1).
	MetadataWithoutServers Break = "metadata-without-servers"
	// MetadataUndiscoverable names no resource_metadata in the challenge
	// and serves no well-known document (PRM-2).
	MetadataUndiscoverable Break = "metadata-undiscoverable"
	// MetadataNotJSON serves the metadata as an HTML page (PRM-3).
	MetadataNotJSON Break = "metadata-not-json"
	// ResourceIsOrigin names the server's origin, not its MCP endpoint, as
	// the resource of the path-suffixed document (PRM-4, PRM-5).
	ResourceIsOrigin Break = "resource-is-origin"
	// AnonymousServed serves a request without a token (TOK-1).
	AnonymousServed Break = "anonymous-served"
	// ChallengeMissing answers 401 without WWW-Authenticate (TOK-1 to TOK-3).
	ChallengeMissing Break = "challenge-missing"
	// MalformedServed serves a request whose token is not an RFC 6750
	// b64token, as if it were a valid one (TOK-2).
	MalformedServed Break = "malformed-served"
	// UnknownAccepted serves any well-formed token it never issued (TOK-3).
	UnknownAccepted Break = "unknown-accepted"
	// ExpiredAccepted serves an expired token (TOK-4).
	ExpiredAccepted Break = "expired-accepted"
	// AudienceIgnored serves a token issued for another resource (TOK-5).
	AudienceIgnored Break = "audience-ignored"
	// ValidRefused answers 401 to a valid token (TOK-6).
	ValidRefused Break = "valid-refused"
	// ScopeChallengeBare answers insufficient scope with 403 but a challenge
	// naming no scope (SCOPE-1).
	ScopeChallengeBare Break = "scope-challenge-bare"
	// OfflineAccessAdvertised names offline_access in scopes_supported and
	// in the challenge's scope (SCOPE-2).
	OfflineAccessAdvertised Break = "offline-access-advertised"
	// OriginIgnored serves a request whatever its Origin (ORIGIN-1).
	OriginIgnored Break = "origin-ignored"
)
