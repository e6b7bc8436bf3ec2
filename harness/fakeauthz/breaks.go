package fakeauthz

// Break names one departure from the mcp-authorization pack. Each breaks the
// requirement its comment names and nothing else the host does.
type Break string

// The departures of the MCP server (the protected resource).
const (
	// MetadataWithoutServers serves no authorization_servers (PRM-1).
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
	// RefreshWidens adds to a refresh's grant whatever scope it asks for
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
	// host and with a fragment (REG-4, REG-5), and redirects codes to them
	// (TLS-3).
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
	// ResponseTypeIgnored issues a code whatever response_type asks for
	// (AUTHREQ-2, drafted); with ChallengeNotRequired no authorization
	// request gets an error response, so the rules about error responses
	// have nothing to read.
	ResponseTypeIgnored Break = "response-type-ignored"
)

// RegistrationThrottled is no departure: the authorization server answers
// every registration 429 with Retry-After, as a rate limit may (RFC 6585
// section 4). What needs a registered client must then be not run, never
// failed.
const RegistrationThrottled Break = "registration-throttled"

// Token and authorization requests throttled are no departures either:
// the endpoint answers 429 with Retry-After, as a limit per address may
// (RFC 6585 section 4).
const (
	// TokenThrottledBriefly answers every fourth token request 429 with
	// Retry-After 1: a client that waits it out is served, and every
	// scenario passes. (Every fourth, not every one, keeps a whole run's
	// waits short.)
	TokenThrottledBriefly Break = "token-throttled-briefly"
	// TokenThrottled answers every token request 429 with Retry-After
	// 3600: what needs a token is not run, never failed.
	TokenThrottled Break = "token-throttled"
	// TokenThrottledOnce answers the first token request 429 with
	// Retry-After 3600 and serves the others: what a limit stopped once
	// and the server then serves must not stay stopped.
	TokenThrottledOnce Break = "token-throttled-once"
	// AuthorizationThrottled answers every authorization request 429 with
	// Retry-After 3600, the approval command's among them: no flow can
	// run, and nothing is failed for it.
	AuthorizationThrottled Break = "authorization-throttled"
)

// The choices below are no departures: each is something a server may do
// that leaves a check unable to run, or that the pack must accept.
const (
	// RegistrationRefused refuses every registration with an RFC 7591 error
	// (section 3.2.2 allows it): what needs a registered client is not run.
	RegistrationRefused Break = "registration-refused"
	// RegistrationProtected answers every registration 401, as an endpoint
	// protected with an initial access token does (RFC 7591 section 3):
	// allowed, though the section's SHOULD of open registration makes it
	// REG-13's tolerated failure.
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
	// endpoint takes only ConfidentialID with ConfidentialSecret, in HTTP
	// Basic or in the body: OAuth 2.1 2.4.1 makes Basic a MAY and the body
	// a MUST for a server that supports client secrets (CLIENTAUTH-1).
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
	// SpeaksBothEras answers a request whose MCP-Protocol-Version is
	// 2026-07-28 as Speaks2026Only does, and any other within an
	// initialize session, as a server that keeps the earlier revisions
	// does (transport, Backward Compatibility): a client of either era is
	// served.
	SpeaksBothEras Break = "speaks-both-eras"
	// LocalhostPortFree takes any port on a redirect URI on the name
	// localhost registered without one, as it does on a loopback IP
	// literal: OAuth 2.1 8.4.2 requires that of IP literals and forbids it
	// of no loopback redirect, so a client's choice of localhost (which
	// only the client half judges, as a SHOULD) never stops its flow.
	LocalhostPortFree Break = "localhost-port-free"
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

// The departures below break requirements drafted from the sentence
// inventory (spec/mcp-authorization/sentences.yaml) whose scenarios do not
// exist yet; each comment names the drafted requirement and the sentence.
const (
	// ChallengeRepeatsAttribute names scope twice in its 401 challenge
	// (CHAL-4; RFC 6750 3: "The scope attribute MUST NOT appear more than
	// once").
	ChallengeRepeatsAttribute Break = "challenge-repeats-attribute"
	// InvalidRequestUnauthorized answers a malformed token 401 with
	// error="invalid_request", which RFC 6750 3.1 answers 400 (CHAL-5).
	InvalidRequestUnauthorized Break = "invalid-request-unauthorized"
	// ScopeChallengeIncremental needs mcp:write and mcp:admin for a call and
	// challenges for one missing scope at a time (SCOPE-4; authorization
	// 11.1.1: "include all scopes required for the current operation in a
	// single challenge").
	ScopeChallengeIncremental Break = "scope-challenge-incremental"
	// SessionIsCredential serves a request that carries a session it issued
	// and no token (HANDLE-1; security best practices 2.4.2).
	SessionIsCredential Break = "session-is-credential"
	// SessionUnbound serves a session to a token of another subject than the
	// one that opened it (HANDLE-2).
	SessionUnbound Break = "session-unbound"
	// MetadataEmptyArray serves bearer_methods_supported as an empty array
	// (PRM-6; RFC 9728 3.2: "Claims with zero elements MUST be omitted").
	MetadataEmptyArray Break = "metadata-empty-array"
	// MetadataPlainJWKS names a jwks_uri with plain http on a host that is
	// not loopback (PRM-7; RFC 9728 2).
	MetadataPlainJWKS Break = "metadata-plain-jwks"
	// MetadataWithoutScopes leaves scopes_supported out of the protected
	// resource metadata (PRM-8; RFC 9728 2, RECOMMENDED).
	MetadataWithoutScopes Break = "metadata-without-scopes"
	// ErrorTextOutsideCharset puts a double quote and a non-ASCII letter in
	// its error descriptions, challenges and token errors alike (ERRSYN-1;
	// OAuth 2.1 3.2.4, 5.3.1).
	ErrorTextOutsideCharset Break = "error-text-outside-charset"
	// EndpointWithFragment names its authorization_endpoint with a fragment
	// (ASM-4; OAuth 2.1 3.1).
	EndpointWithFragment Break = "endpoint-with-fragment"
	// ASMetadataTextPlain serves its metadata's JSON as text/plain (ASM-5;
	// RFC 8414 3.2).
	ASMetadataTextPlain Break = "as-metadata-text-plain"
	// ASMetadataEmptyArray serves acr_values_supported as an empty array
	// (ASM-6; RFC 8414 3.2).
	ASMetadataEmptyArray Break = "as-metadata-empty-array"
	// ASMetadataWithoutScopes leaves scopes_supported out of the
	// authorization server metadata (ASM-7; RFC 8414 2, RECOMMENDED).
	ASMetadataWithoutScopes Break = "as-metadata-without-scopes"
	// SigningAlgNone lists none in
	// token_endpoint_auth_signing_alg_values_supported (ASM-8; RFC 8414 2).
	SigningAlgNone Break = "signing-alg-none"
	// JWTMethodWithoutAlgs, a compliant choice, lists private_key_jwt among
	// token_endpoint_auth_methods_supported and no
	// token_endpoint_auth_signing_alg_values_supported in its OpenID Connect
	// Discovery document, where that member is OPTIONAL (as ORY Hydra's).
	JWTMethodWithoutAlgs Break = "jwt-method-without-algs"
	// JWTMethodWithoutAlgsRFC8414 serves that document at RFC 8414's
	// well-known URI too, where the member "MUST be present" (ASM-8; RFC
	// 8414 2). Implies JWTMethodWithoutAlgs.
	JWTMethodWithoutAlgsRFC8414 Break = "jwt-method-without-algs-rfc8414"
	// AuthorizationGETRefused answers GET at the authorization endpoint 405
	// and takes the request by POST only (AUTHEP-1; OAuth 2.1 3.1).
	AuthorizationGETRefused Break = "authorization-get-refused"
	// UnknownParamRefused refuses an authorization request carrying a
	// parameter it does not know with invalid_request (AUTHEP-2; OAuth 2.1
	// 3.1: "MUST ignore unrecognized request parameters").
	UnknownParamRefused Break = "unknown-param-refused"
	// ScopeOmittedWrongError refuses an authorization request without scope
	// with invalid_request, neither a default scope nor invalid_scope
	// (AUTHREQ-1; OAuth 2.1 1.4.1).
	ScopeOmittedWrongError Break = "scope-omitted-wrong-error"
	// StateRepeated sends state twice in its authorization responses
	// (PARAM-1; OAuth 2.1 3.1).
	StateRepeated Break = "state-repeated"
	// RedirectQueryDropped drops the query a redirect URI was registered
	// with (REDIR-4; OAuth 2.1 2.3).
	RedirectQueryDropped Break = "redirect-query-dropped"
	// PlainRedirectHonoured registers a plain http redirect URI on a host
	// that is not loopback and redirects codes to it (TLS-3, and REG-4 by
	// construction; issue 21 item h).
	PlainRedirectHonoured Break = "plain-redirect-honoured"
	// FramingAllowed answers the authorization endpoint with a consent page
	// that forbids no framing (FRAME-1; OAuth 2.1 7.10).
	FramingAllowed Break = "framing-allowed"
	// ConfidentialPKCEOptional issues codes without code_challenge to
	// confidential clients and redeems them (PKCE-6; issue 21 item j: PKCE-2
	// must be judged with a public client only). Implies
	// ConfidentialRegistration.
	ConfidentialPKCEOptional Break = "confidential-pkce-optional"
	// StateEntropyRequired, a compliant choice, refuses an authorization
	// request whose state is missing or shorter than 8 characters with
	// error=invalid_state, as ORY Hydra does for their entropy: OAuth 2.1
	// has a client send one-time CSRF tokens in state (2.3.3), so a client's
	// flow must pass it.
	StateEntropyRequired Break = "state-entropy-required"
	// ChallengeEnforcedAtToken, a compliant choice, issues codes without
	// code_challenge to confidential clients but refuses to redeem them,
	// with invalid_grant (PKCE-6 passes: OAuth 2.1 4.1.3, "the
	// authorization server MUST reject the token request"). Implies
	// ConfidentialRegistration.
	ChallengeEnforcedAtToken Break = "challenge-enforced-at-token"
	// TokenErrorInFragment, a compliant choice, refuses response_type=token
	// with unsupported_response_type in the redirect's fragment, where a
	// server that knows the implicit grant answers it (RFC 6749 4.2.2.1), as
	// panva's oidc-provider does: an error response all the same (OAuth 2.1
	// 4.1.1, AUTHREQ-2).
	TokenErrorInFragment Break = "token-error-in-fragment"
	// ImplicitTokenInFragment answers response_type=token with an access
	// token in the redirect's fragment, as an implicit grant would (RFC 6749
	// 4.2.2): AUTHREQ-2 fails (OAuth 2.1 4.1.1, 7.1.3.7).
	ImplicitTokenInFragment Break = "implicit-token-in-fragment"
	// ChallengeInCode puts the code_challenge verbatim in the code (PKCE-7;
	// OAuth 2.1 4.1.2).
	ChallengeInCode Break = "challenge-in-code"
	// ChallengeMissingWrongError refuses a request without code_challenge
	// with access_denied, not invalid_request (PKCE-8; RFC 7636 4.4.1).
	ChallengeMissingWrongError Break = "challenge-missing-wrong-error"
	// ResourceCaseSensitive refuses the MCP endpoint as resource when its
	// scheme or host is uppercase (CANON-1; authorization 8.1). Implies
	// ResourceIndicators.
	ResourceCaseSensitive Break = "resource-case-sensitive"
	// TokenUnknownParamRefused refuses a token request carrying a parameter
	// it does not know (TOKEP-1; OAuth 2.1 3.2).
	TokenUnknownParamRefused Break = "token-unknown-param-refused"
	// EmptyScopeRefused refuses a refresh with scope= (empty) with
	// invalid_scope (TOKEP-2; OAuth 2.1 3.2: "Parameters sent without a
	// value MUST be treated as if they were omitted").
	EmptyScopeRefused Break = "empty-scope-refused"
	// AccessTokenMissing answers token requests 200 without access_token
	// (TOKRESP-2; OAuth 2.1 3.2.3).
	AccessTokenMissing Break = "access-token-missing"
	// ScopeNarrowedSilently grants a code's token mcp:tools alone, says so
	// only in the token (a JWT), and leaves scope out of the response
	// (TOKRESP-3; OAuth 2.1 1.4.1).
	ScopeNarrowedSilently Break = "scope-narrowed-silently"
	// SecretPostRefused takes a confidential client's secret by HTTP Basic
	// only, refusing it in the body (CLIENTAUTH-1; OAuth 2.1 2.4.1) from a
	// client registered for client_secret_post or whose method the profile
	// does not give. From a client registered for client_secret_basic it is
	// a compliant choice, ORY Hydra's: the server holds the client to the
	// method it registered with (RFC 7591 2). Implies
	// ConfidentialRegistration.
	SecretPostRefused Break = "secret-post-refused"
	// SecretBodyOnly, a compliant choice, lists client_secret_basic and
	// client_secret_post, and takes ConfidentialID's secret in the body
	// only, the client_secret_post it stands registered with: a server may
	// hold a client to the method it registered with (RFC 7591 2), as ORY
	// Hydra does. Implies ConfidentialOnly.
	SecretBodyOnly Break = "secret-body-only"
	// SecretNotChecked redeems a confidential client's code without its
	// secret or with a wrong one (CLIENTAUTH-2; OAuth 2.1 3.2.2). Implies
	// ConfidentialRegistration.
	SecretNotChecked Break = "secret-not-checked"
	// BasicFailureNoChallenge answers a wrong secret sent by HTTP Basic 400
	// invalid_client without WWW-Authenticate (CLIENTAUTH-3; OAuth 2.1
	// 3.2.4). Implies ConfidentialRegistration.
	BasicFailureNoChallenge Break = "basic-failure-no-challenge"
	// CodeReplayKeepsTokens keeps the tokens of a code's first redemption
	// when the code is redeemed again (CODE-3, a SHOULD; OAuth 2.1 4.1.3:
	// "SHOULD revoke (when possible) all access tokens and refresh tokens
	// previously issued based on that authorization code").
	CodeReplayKeepsTokens Break = "code-replay-keeps-tokens"
	// RotationReplayKeepsGrant keeps a grant's newest refresh token good when
	// a refresh token rotated out of it is presented again (REFRESH-6, a
	// SHOULD derived from OAuth 2.1 4.3.1's refresh token rotation).
	RotationReplayKeepsGrant Break = "rotation-replay-keeps-grant"
	// InvalidReplayRevokes revokes a code's tokens when the code is replayed
	// with a wrong code_verifier (CODE-4; OAuth 2.1 7.5.3).
	InvalidReplayRevokes Break = "invalid-replay-revokes"
	// RefreshAnyToken serves a refresh with a refresh token it never issued,
	// though not one it rotated out (REFRESH-7; OAuth 2.1 4.3.1).
	RefreshAnyToken Break = "refresh-any-token"
	// RefreshNarrowsRefreshToken gives the new refresh token of a refresh
	// asking for less scope that lesser scope (REFRESH-8; OAuth 2.1 4.3.3).
	RefreshNarrowsRefreshToken Break = "refresh-narrows-refresh-token"
	// AudienceOmitted issues JWT access tokens without aud (AUD-1; OAuth
	// 2.1 7.1.3.6).
	AudienceOmitted Break = "audience-omitted"
	// RegistrationRelativeRedirect registers a relative redirect URI
	// (REG-6; OAuth 2.1 2.3).
	RegistrationRelativeRedirect Break = "registration-relative-redirect"
	// RegistrationPrivateSchemeNoPeriod registers a private-use scheme
	// without a period (REG-7; OAuth 2.1 2.3.1).
	RegistrationPrivateSchemeNoPeriod Break = "registration-private-scheme-no-period"
	// RegistrationSameClientID answers every registration with the same
	// client_id (REG-9; RFC 7591 3.2.1; issue 21 item l).
	RegistrationSameClientID Break = "registration-same-client-id"
	// RegistrationEchoesNothing answers a registration 201 with its
	// client_id alone (REG-10; RFC 7591 3.2.1).
	RegistrationEchoesNothing Break = "registration-echoes-nothing"
	// SecretWithoutExpiry issues client secrets without
	// client_secret_expires_at (REG-11; RFC 7591 3.2.1). Implies
	// ConfidentialRegistration.
	SecretWithoutExpiry Break = "secret-without-expiry"
	// RegistrationUnknownFieldRefused refuses a registration carrying a
	// metadata field it does not know (REG-12; RFC 7591 2).
	RegistrationUnknownFieldRefused Break = "registration-unknown-field-refused"
	// RevocationIgnored answers revocations 200 and revokes nothing
	// (REVOKE-1; RFC 7009 2). Implies Revocation.
	RevocationIgnored Break = "revocation-ignored"
	// RevocationHintStrict looks a revoked token up only where its
	// token_type_hint says (REVOKE-2; RFC 7009 2.1). Implies Revocation.
	RevocationHintStrict Break = "revocation-hint-strict"
	// RevocationKeepsAccess revokes a refresh token but not the access
	// tokens of its grant (REVOKE-3; RFC 7009 2.1). Implies Revocation.
	RevocationKeepsAccess Break = "revocation-keeps-access"
	// IntrospectionOpen answers introspection without client
	// authentication (INTROSPECT-1; RFC 7662 2.1). Implies Introspection.
	IntrospectionOpen Break = "introspection-open"
	// IntrospectionHintStrict looks an introspected token up only where its
	// token_type_hint says (INTROSPECT-2; RFC 7662 2.1). Implies
	// Introspection.
	IntrospectionHintStrict Break = "introspection-hint-strict"
	// IntrospectionActiveMissing answers introspection without active
	// (INTROSPECT-3; RFC 7662 2.2). Implies Introspection.
	IntrospectionActiveMissing Break = "introspection-active-missing"
	// IntrospectionInactiveDetails says why an inactive token is inactive
	// (INTROSPECT-4; RFC 7662 2.2). Implies Introspection.
	IntrospectionInactiveDetails Break = "introspection-inactive-details"
)

// The departures below reproduce wrong verdicts seen on real servers
// (issue 21 item 3): each breaks a requirement the pack already holds in a
// way its scenario must see.
const (
	// LoopbackErrorRedirect answers a loopback redirect URI on another port
	// with an error redirect to it, as one SDK's demo server did
	// (LOOPBACK-1; item a: an error redirect is no acceptance).
	LoopbackErrorRedirect Break = "loopback-error-redirect"
	// ScopeErrorUnauthorized answers insufficient scope 401 with
	// error="insufficient_scope" (SCOPE-1; item f: authorization 11 says
	// 403).
	ScopeErrorUnauthorized Break = "scope-error-unauthorized"
	// RefreshWidensAdvertised grants in a refresh the scopes it asks for
	// that the metadata advertises, dropping unknown ones as real servers
	// do (REFRESH-4; item g: asking for a scope no server knows cannot
	// catch it).
	RefreshWidensAdvertised Break = "refresh-widens-advertised"
	// MalformedTokenHangsUp closes the connection of a request whose token
	// is malformed, without an answer (TOK-2; item i: a departure, not a
	// fault of the harness).
	MalformedTokenHangsUp Break = "malformed-token-hangs-up"
	// AnyVerifier accepts code_challenge_method plain and redeems a code
	// whatever its code_verifier (PKCE-3, PKCE-5; item k: "supports plain"
	// is not to be inferred from a server that checks nothing).
	AnyVerifier Break = "any-verifier"
)

// The choices below are no departures; each is one a real server made that
// the pack must meet (issue 21 item 3), or one a drafted requirement's
// scenario needs to pass.
const (
	// ReauthorizationRevokes revokes every token and refresh token issued
	// to a client when the same client is authorized again, as a popular
	// authorization server library does by default (item b). Host.MintFor
	// gives the run a credential of that client.
	ReauthorizationRevokes Break = "reauthorization-revokes"
	// ExpiredTokenLive serves the profile's "expired" token: it is opaque
	// and not in fact expired, and with Introspection the endpoint says it
	// is active (item c: TOK-4 needs evidence of expiry).
	ExpiredTokenLive Break = "expired-token-live"
	// Introspection advertises introspection_endpoint (RFC 7662), which
	// answers ConfidentialID's HTTP Basic credentials with active, aud,
	// scope, client_id and exp (item d: TOK-4's and TOK-5's evidence).
	Introspection Break = "introspection"
	// Revocation advertises revocation_endpoint (RFC 7009), revoking refresh
	// tokens with the access tokens of their grant, and access tokens.
	Revocation Break = "revocation"
	// LimitedTokenRefusedEverywhere refuses the limited token 403
	// insufficient_scope on every request, the protected one included
	// (item e: the answer SCOPE-1 and SCOPE-3 ask for).
	LimitedTokenRefusedEverywhere Break = "limited-token-refused-everywhere"
	// PlainRedirectRegisteredNotUsed registers a plain http redirect URI on
	// a host that is not loopback (REG-4, a SHOULD, fails) but never
	// redirects a code to it (TLS-3 passes; item h).
	PlainRedirectRegisteredNotUsed Break = "plain-redirect-registered-not-used"
	// TwoMethodsRefused refuses a token request that carries HTTP Basic
	// credentials and a client_id in the body together, with invalid_request
	// (item m: OAuth 2.1 2.4 allows one method per request).
	TwoMethodsRefused Break = "two-methods-refused"
	// ConfidentialRegistration answers a registration with a client_secret,
	// client_secret_expires_at 0 and token_endpoint_auth_method
	// client_secret_basic, and requires the secret at the token endpoint, by
	// HTTP Basic or in the body (item n). A native client that asked for
	// none made confidential is REG-8's tolerated departure.
	ConfidentialRegistration Break = "confidential-registration"
	// SecretWithNone, a compliant choice, answers a registration with a
	// client_secret yet keeps the token_endpoint_auth_method none asked for
	// and never requires the secret: nothing is required of a native client
	// (REG-8 passes, OAuth 2.1 8.1.1).
	SecretWithNone Break = "secret-with-none"
	// RefreshOnlyOfflineAccess advertises offline_access and issues refresh
	// tokens only to authorizations that asked for it (item o).
	RefreshOnlyOfflineAccess Break = "refresh-only-offline-access"
	// RefreshOnlyOfflineAccessUnadvertised issues refresh tokens only to
	// authorizations that asked for offline_access, as
	// RefreshOnlyOfflineAccess, but names offline_access nowhere: the
	// refresh rules are not run, and say it was neither advertised nor
	// asked for (item o).
	RefreshOnlyOfflineAccessUnadvertised Break = "refresh-only-offline-access-unadvertised"
	// NoAuthorization serves every request without a token, and serves no
	// protected resource metadata and no challenge: a server that does not
	// use MCP authorization at all (item p).
	NoAuthorization Break = "no-authorization"
	// JWTAccessTokens issues JWT access tokens (unsigned: only the fake reads
	// them back, by value) naming their aud, scope and exp (AUD-1).
	JWTAccessTokens Break = "jwt-access-tokens"
)

// implies are the variants a variant needs to be what it says: a
// confidential client's departures need confidential clients, an endpoint's
// departures the endpoint.
var implies = map[Break][]Break{
	ConfidentialPKCEOptional:     {ConfidentialRegistration},
	ChallengeEnforcedAtToken:     {ConfidentialRegistration},
	JWTMethodWithoutAlgsRFC8414:  {JWTMethodWithoutAlgs},
	SecretPostRefused:            {ConfidentialRegistration},
	SecretBodyOnly:               {ConfidentialOnly},
	SecretNotChecked:             {ConfidentialRegistration},
	BasicFailureNoChallenge:      {ConfidentialRegistration},
	SecretWithoutExpiry:          {ConfidentialRegistration},
	ResourceCaseSensitive:        {ResourceIndicators},
	RevocationIgnored:            {Revocation},
	RevocationHintStrict:         {Revocation},
	RevocationKeepsAccess:        {Revocation},
	IntrospectionOpen:            {Introspection},
	IntrospectionHintStrict:      {Introspection},
	IntrospectionActiveMissing:   {Introspection},
	IntrospectionInactiveDetails: {Introspection},
	AnyVerifier:                  {PlainAccepted, VerifierNotChecked},
	AudienceOmitted:              {JWTAccessTokens},
	ScopeNarrowedSilently:        {JWTAccessTokens},
}
