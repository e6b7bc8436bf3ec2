package fakeclient

// Break names one departure from a client requirement. Each breaks the
// requirement its comment names and nothing else the client does.
type Break string

// The departures from the mcp-authorization pack's client rules.
const (
	// ChallengeMetadataIgnored never reads the challenge's
	// resource_metadata; it tries the well-known URIs only (CLI-1).
	ChallengeMetadataIgnored Break = "challenge-metadata-ignored"
	// RootMetadataFirst tries the root well-known URI before the one with
	// the endpoint's path (CLI-2).
	RootMetadataFirst Break = "root-metadata-first"
	// OpenIDFirst tries OpenID Connect Discovery before RFC 8414 (CLI-3).
	OpenIDFirst Break = "openid-first"
	// IssuerNotChecked uses metadata whose issuer is not the one its URI
	// was built from (CLI-4).
	IssuerNotChecked Break = "issuer-not-checked"
	// PKCENotChecked goes on when the metadata has no
	// code_challenge_methods_supported (CLI-5).
	PKCENotChecked Break = "pkce-not-checked"
	// PlainPKCE sends the plain code challenge method (CLI-6).
	PlainPKCE Break = "plain-pkce"
	// ResourceOmitted sends no resource parameter (CLI-7).
	ResourceOmitted Break = "resource-omitted"
	// MetadataScopes asks for scopes_supported even when the challenge
	// names a scope (CLI-8).
	MetadataScopes Break = "metadata-scopes"
	// NoStepUp gives up on 403 insufficient_scope (CLI-9).
	NoStepUp Break = "no-step-up"
	// IssNotChecked sends the code to the token endpoint whatever the
	// authorization response's iss (CLI-10).
	IssNotChecked Break = "iss-not-checked"
	// RequestWithoutToken sends one request without its token once it has
	// one (CLI-11).
	RequestWithoutToken Break = "request-without-token"
	// IssNormalized compares the iss with the issuer after trimming a
	// trailing slash and folding case (CLI-27).
	IssNormalized Break = "iss-normalized"
	// TokenInQuery sends the token in the URI query too (CLI-12).
	TokenInQuery Break = "token-in-query"
	// TokenShared keeps one token for every server, and sends it to any
	// (CLI-13).
	TokenShared Break = "token-shared"
	// ModernHeaderMissing sends one 2026-07-28 request without Mcp-Method
	// (CLI-14).
	ModernHeaderMissing Break = "modern-header-missing"
	// VersionHeaderMismatch sends one 2026-07-28 request whose
	// MCP-Protocol-Version names another revision (CLI-28).
	VersionHeaderMismatch Break = "version-header-mismatch"
	// ApplicationTypeOmitted registers without application_type (CLI-20).
	ApplicationTypeOmitted Break = "application-type-omitted"
	// ClientIDByServer keeps its client ID by MCP server, not by
	// authorization server, and so reuses it when the server moves to
	// another authorization server (CLI-21).
	ClientIDByServer Break = "client-id-by-server"
	// StateNotChecked redeems a code whatever state came back (CLI-22).
	StateNotChecked Break = "state-not-checked"
	// StateOmitted sends no state (CLI-22).
	StateOmitted Break = "state-omitted"
	// ResourceNotChecked uses protected resource metadata whose resource
	// is not the URL it requested (CLI-29).
	ResourceNotChecked Break = "resource-not-checked"
	// UnknownMembersRefused gives up on a token response with a member it
	// does not know (CLI-30).
	UnknownMembersRefused Break = "unknown-members-refused"
	// RefreshAssumed gives up when its token is refused and it holds no
	// refresh token (CLI-31).
	RefreshAssumed Break = "refresh-assumed"
	// RefreshWithoutResource sends no resource when it refreshes (CLI-7).
	RefreshWithoutResource Break = "refresh-without-resource"
	// RefreshGrantUnregistered registers without refresh_token in its
	// grant_types, though it refreshes (CLI-23).
	RefreshGrantUnregistered Break = "refresh-grant-unregistered"
	// GrantedScopesDropped asks, on step-up, for the 403's scopes alone,
	// not those already granted besides (CLI-25).
	GrantedScopesDropped Break = "granted-scopes-dropped"
	// ChallengeReused sends the run's first code_challenge again with
	// every later authorization request, redeeming each code with its
	// verifier (CLI-26).
	ChallengeReused Break = "challenge-reused"
	// RegistersFirst registers dynamically although it has a client
	// registered beforehand or a client ID metadata document (CLI-34).
	RegistersFirst Break = "registers-first"
	// CIMDUnchecked names itself by its client ID metadata document
	// whether or not the authorization server says it supports them
	// (CLI-35).
	CIMDUnchecked Break = "cimd-unchecked"
	// SecretTwice, a confidential client, sends its secret in the token
	// request's body as well as in HTTP Basic (CLI-36).
	SecretTwice Break = "secret-twice"
	// LocalhostRedirect registers and sends redirect URIs on the name
	// localhost rather than a loopback IP literal (CLI-37).
	LocalhostRedirect Break = "localhost-redirect"
)

// The departures from the source document's client rules.
const (
	// ChallengeNotFollowed signs in without fetching the metadata the
	// challenge names (CLI-15).
	ChallengeNotFollowed Break = "challenge-not-followed"
	// RegistersEveryStart registers a new client at every start (CLI-16).
	RegistersEveryStart Break = "registers-every-start"
	// IsErrorIgnored counts a result with isError true as success (CLI-17).
	IsErrorIgnored Break = "is-error-ignored"
	// DeviceFlowNotRestarted gives up on invalid_grant (CLI-18).
	DeviceFlowNotRestarted Break = "device-flow-not-restarted"
	// NoSignInAgain gives up when its credential stops working (CLI-19).
	NoSignInAgain Break = "no-sign-in-again"
	// CredentialInQuery also sends its credential in a URI query (CLI-24).
	CredentialInQuery Break = "credential-in-query"
)

// Breaks lists every Break, for the tests that prove each able to fail
// its scenario.
func Breaks() []Break {
	return []Break{ChallengeMetadataIgnored, RootMetadataFirst, OpenIDFirst, IssuerNotChecked, PKCENotChecked, PlainPKCE,
		ResourceOmitted, MetadataScopes, NoStepUp, IssNotChecked, IssNormalized, RequestWithoutToken, TokenInQuery,
		TokenShared, ModernHeaderMissing, VersionHeaderMismatch, ApplicationTypeOmitted, ClientIDByServer, StateNotChecked, StateOmitted,
		RefreshWithoutResource, RefreshGrantUnregistered, GrantedScopesDropped, ChallengeReused, ResourceNotChecked, UnknownMembersRefused,
		RefreshAssumed,
		RegistersFirst, CIMDUnchecked, SecretTwice, LocalhostRedirect,
		ChallengeNotFollowed, RegistersEveryStart, IsErrorIgnored, DeviceFlowNotRestarted, NoSignInAgain, CredentialInQuery}
}
