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
	// ScopeNotEnforced serves a call whatever scope its token has (SCOPE-1).
	ScopeNotEnforced Break = "scope-not-enforced"
	// OfflineAccessAdvertised names offline_access in scopes_supported and
	// in the challenge's scope (SCOPE-2).
	OfflineAccessAdvertised Break = "offline-access-advertised"
	// OriginIgnored serves a request whatever its Origin (ORIGIN-1).
	OriginIgnored Break = "origin-ignored"
	// ChallengeWithoutParams answers 401 with a bare "Bearer", no auth-param
	// (TOK-1 to TOK-5, TOK-8, and what reads the challenge).
	ChallengeWithoutParams Break = "challenge-without-params"
	// MalformedBareBadRequest answers a malformed token 400 without a
	// challenge (TOK-2).
	MalformedBareBadRequest Break = "malformed-bare-bad-request"
	// MetadataNotJSONType serves the metadata's JSON as text/plain (PRM-3).
	MetadataNotJSONType Break = "metadata-not-json-type"
	// QueryTokenAccepted serves a token sent as access_token in the URI
	// query (TOK-7).
	QueryTokenAccepted Break = "query-token-accepted"
	// TamperAccepted serves a token that matches an issued one in its first
	// half (TOK-8).
	TamperAccepted Break = "tamper-accepted"
	// ChallengeWithoutScope names no scope in its challenges (CHAL-1).
	ChallengeWithoutScope Break = "challenge-without-scope"
	// InvalidTokenUnnamed names no error when it refuses a token (CHAL-2).
	InvalidTokenUnnamed Break = "invalid-token-unnamed"
	// ErrorWithoutToken names invalid_token in the challenge to a request
	// without a token, and none when a token was presented (CHAL-2, CHAL-3).
	ErrorWithoutToken Break = "error-without-token"
)

// The departures of the authorization server.
const (
	// ASMetadataMissing serves no authorization server metadata (ASM-1).
	ASMetadataMissing Break = "as-metadata-missing"
	// ASIssuerMismatch names the origin, not the issuer with its path, as
	// issuer (ASM-2).
	ASIssuerMismatch Break = "as-issuer-mismatch"
	// ASEndpointsMissing leaves authorization_endpoint out (ASM-3).
	ASEndpointsMissing Break = "as-endpoints-missing"
	// S256NotAdvertised leaves code_challenge_methods_supported out (PKCE-1).
	S256NotAdvertised Break = "s256-not-advertised"
	// ChallengeNotRequired issues a code for a request without
	// code_challenge (PKCE-2).
	ChallengeNotRequired Break = "challenge-not-required"
	// PlainAccepted accepts code_challenge_method plain though it advertises
	// S256 alone (PKCE-3).
	PlainAccepted Break = "plain-accepted"
	// PlainOtherError refuses code_challenge_method plain with
	// unsupported_response_type, not invalid_request (PKCE-3).
	PlainOtherError Break = "plain-other-error"
	// VerifierNotChecked redeems a code whatever the code_verifier (PKCE-4,
	// PKCE-5).
	VerifierNotChecked Break = "verifier-not-checked"
	// RedirectPrefixMatched accepts a redirect_uri that merely begins with a
	// registered one (REDIR-1).
	RedirectPrefixMatched Break = "redirect-prefix-matched"
	// CodeClientUnbound redeems a code for any client (CODE-2).
	CodeClientUnbound Break = "code-client-unbound"
	// RefreshClientUnbound refreshes for any client (REFRESH-3).
	RefreshClientUnbound Break = "refresh-client-unbound"
	// RefreshWidens grants in a refresh whatever scope it asks for
	// (REFRESH-4).
	RefreshWidens Break = "refresh-widens"
	// NoExpiresIn issues tokens without expires_in (TOKLIFE-1).
	NoExpiresIn Break = "no-expires-in"
	// LoopbackPortFixed refuses a loopback redirect URI on another port than
	// the registered one's (LOOPBACK-1).
	LoopbackPortFixed Break = "loopback-port-fixed"
	// TokenRedirectWrongError refuses a code redeemed with another
	// redirect_uri with invalid_request, not invalid_grant (REDIR-2).
	TokenRedirectWrongError Break = "token-redirect-wrong-error"
	// StateNotEchoed changes the state it sends back (STATE-1).
	StateNotEchoed Break = "state-not-echoed"
	// UnknownClientRedirected redirects a request of a client_id it never
	// issued to the redirect_uri, with a code (REDIR-3).
	UnknownClientRedirected Break = "unknown-client-redirected"
	// CORSAllowed answers the authorization endpoint with
	// Access-Control-Allow-Origin: * (CORS-1).
	CORSAllowed Break = "cors-allowed"
	// PlainHTTPEndpoint names a revocation endpoint with plain http on a
	// host that is not loopback (TLS-2).
	PlainHTTPEndpoint Break = "plain-http-endpoint"
	// ResponseTypesMissing leaves response_types_supported out (ASM-3).
	ResponseTypesMissing Break = "response-types-missing"
	// TokenCacheable answers token requests without Cache-Control: no-store
	// (TOKRESP-1).
	TokenCacheable Break = "token-cacheable"
	// CodeReusable redeems a code more than once (CODE-1).
	CodeReusable Break = "code-reusable"
	// RefreshNotRotated answers a refresh without a new refresh token and
	// keeps the old one good (REFRESH-1, REFRESH-2).
	RefreshNotRotated Break = "refresh-not-rotated"
	// RefreshReplayAccepted issues a new refresh token but keeps the old one
	// good (REFRESH-2).
	RefreshReplayAccepted Break = "refresh-replay-accepted"
	// IssMissing advertises iss but never sends it (ISS-2, ISS-3).
	IssMissing Break = "iss-missing"
	// IssNotAdvertised sends iss without advertising it (ISS-1).
	IssNotAdvertised Break = "iss-not-advertised"
	// CIMDNotAdvertised does not advertise Client ID Metadata Documents (REG-1).
	CIMDNotAdvertised Break = "cimd-not-advertised"
	// RegistrationAnyRedirect registers any redirect URI, plain http on any
	// host and with a fragment (REG-4, REG-5).
	RegistrationAnyRedirect Break = "registration-any-redirect"
	// RegistrationBroken answers a valid registration 200 without a
	// client_id (REG-2).
	RegistrationBroken Break = "registration-broken"
	// RegistrationUnreachable advertises a registration_endpoint nothing
	// listens on (REG-2).
	RegistrationUnreachable Break = "registration-unreachable"
	// RefreshRetargets issues, for a refresh naming another resource, a
	// token for that resource, a JWT whose aud names it (REFRESH-5).
	RefreshRetargets Break = "refresh-retargets"
	// RefreshRefused issues refresh tokens but refuses every refresh with
	// invalid_grant (REFRESH-1): the refusals REFRESH-2 to REFRESH-5 judge
	// mean nothing then, and they are not run.
	RefreshRefused Break = "refresh-refused"
	// CORSPreflightAllowed answers a CORS preflight at the authorization
	// endpoint allowing the origin that asks (CORS-1).
	CORSPreflightAllowed Break = "cors-preflight-allowed"
	// AuthorizationEndpointDown answers every authorization request 503,
	// as a misconfigured endpoint would: the flows cannot run, and CORS-1,
	// whose answer would prove nothing, is not run either.
	AuthorizationEndpointDown Break = "authorization-endpoint-down"
	// ResponseTypeIgnored issues a code whatever response_type asks for;
	// with ChallengeNotRequired no authorization request gets an error
	// response, so the rules about error responses have nothing to read.
	ResponseTypeIgnored Break = "response-type-ignored"
)

// RegistrationThrottled is no departure: the authorization server answers
// every registration 429 with Retry-After, as a rate limit may (RFC 6585
// section 4). What needs a registered client must then be not run, never
// failed.
const RegistrationThrottled Break = "registration-throttled"

// The choices below are no departures: each is something a server may do
// that leaves a check unable to run, or that the pack must accept.
const (
	// RegistrationRefused refuses every registration with an RFC 7591 error
	// (section 3.2.2 allows it): what needs a registered client is not run.
	RegistrationRefused Break = "registration-refused"
	// RegistrationProtected answers every registration 401, as an endpoint
	// protected with an initial access token does (RFC 7591 section 3).
	RegistrationProtected Break = "registration-protected"
	// MalformedBadRequest answers a malformed token 400 invalid_request, as
	// RFC 6750 section 3.1 says it SHOULD.
	MalformedBadRequest Break = "malformed-bad-request"
	// BasicAuthOnly protects the MCP endpoint with HTTP Basic and serves no
	// protected resource metadata: authorization of its own, which MCP
	// allows (authorization.1.2) and AUTHZ-1 names once.
	BasicAuthOnly Break = "basic-auth-only"
	// StopsAnswering closes every connection of the MCP server after its
	// first stopsAfter requests, as a server that crashed mid-run: what
	// follows is no verdict on it.
	StopsAnswering Break = "stops-answering"
	// EndpointAtRoot serves the MCP endpoint at the origin's root, and its
	// metadata at the root well-known URI.
	EndpointAtRoot Break = "endpoint-at-root"
	// EndpointNested serves the MCP endpoint at /api/v1/mcp.
	EndpointNested Break = "endpoint-nested"
	// TokenRedirectIgnored redeems a code whatever the redirect_uri, as
	// OAuth 2.1 lets a server that serves no OAuth 2.0 client (section
	// 10.2).
	TokenRedirectIgnored Break = "token-redirect-ignored"
	// ConfidentialOnly serves confidential clients only: its metadata lists
	// client_secret_basic alone, it refuses registrations, and its token
	// endpoint takes only ConfidentialID with ConfidentialSecret in HTTP
	// Basic (OAuth 2.1 2.4.1).
	ConfidentialOnly Break = "confidential-only"
	// ResourceIndicators refuses a resource it does not serve with
	// invalid_target (RFC 8707 2), which shows it binds tokens to their
	// resource; without it, the fake takes any resource.
	ResourceIndicators Break = "resource-indicators"
	// ScopeRequired refuses an authorization request that does not ask for
	// the scope its challenge names, with invalid_scope: a client that
	// chooses its scope as MCP's Scope Selection Strategy says gets its code.
	ScopeRequired Break = "scope-required"
	// ApprovalRefusedInvalidScope answers every valid authorization request
	// with invalid_scope, as a server that needs a scope the client did not
	// ask for may: the flows cannot be set up, and are not run.
	ApprovalRefusedInvalidScope Break = "approval-refused-invalid-scope"
	// ConsentPage answers every authorization request with a 200 page, as a
	// server that asks a person first does: only the approval command can
	// say where it leads.
	ConsentPage Break = "consent-page"
	// Speaks2026Only speaks only MCP 2026-07-28, statelessly: it checks the
	// mirrored headers and _meta before the token (package fakeprotocol),
	// has no initialize and answers server/discover.
	Speaks2026Only Break = "speaks-2026-only"
	// NoRegistration names no registration_endpoint, as an authorization
	// server whose clients are registered beforehand may: the profile gives
	// the one client, and what needs a second is not run.
	NoRegistration Break = "no-registration"
	// RefreshResourceIgnored serves a refresh naming another resource with
	// an opaque token for the grant's own, as a server that takes no
	// resource at the token endpoint may: which resource the token is for
	// cannot be seen, and REFRESH-5 is not run.
	RefreshResourceIgnored Break = "refresh-resource-ignored"
	// LoopbackPortsNativeOnly lets a loopback redirect URI take another port
	// only for a client registered with application_type native, as an
	// OpenID provider may: RFC 8252 7.3 is a rule for native apps, and
	// a registration without application_type is a web client's (OpenID
	// Connect Dynamic Client Registration 1.0, section 2).
	LoopbackPortsNativeOnly Break = "loopback-ports-native-only"
	// PlainHonoured supports code_challenge_method plain (a code issued for
	// it is redeemed with the challenge as its verifier) without listing it
	// in code_challenge_methods_supported, as zitadel's OpenID provider
	// does: OAuth 2.1 4.1.1 lets a client learn of plain out of band, and
	// 4.1.2.1's invalid_request binds only a server that does not support
	// the method, so PKCE-3 is not run.
	PlainHonoured Break = "plain-honoured"
)

// stopsAfter is how many requests a StopsAnswering server answers.
const stopsAfter = 25
