package fakehost

// Break names one departure from the source document. Each breaks a single
// requirement (named in its comment) and nothing else the host does.
type Break string

// The departures on the MCP side.
const (
	// ChallengeMissing sends the 401 without WWW-Authenticate (T401-2).
	ChallengeMissing Break = "challenge-missing"
	// ChallengeWithoutResourceMetadata sends a Bearer challenge with no
	// resource_metadata parameter (T401-2).
	ChallengeWithoutResourceMetadata Break = "challenge-without-resource-metadata"
	// ChallengeWrongResourceMetadata points resource_metadata at the
	// authorization server metadata instead of the protected resource (T401-2).
	ChallengeWrongResourceMetadata Break = "challenge-wrong-resource-metadata"
	// BodyNotUnauthorized answers 401 with error "invalid_token" (T401-3).
	BodyNotUnauthorized Break = "body-not-unauthorized"
	// BodyDiffersByCause adds an error_description naming the cause to every
	// 401 but the anonymous privileged call's (T401-4).
	BodyDiffersByCause Break = "body-differs-by-cause"
	// BodyNotJSON serves the 401 body as text/plain (T401-8, a SHOULD).
	BodyNotJSON Break = "body-not-json"
	// RefusalCarriesResult answers a gate refusal with a JSON-RPC result
	// instead of the bare 401 body (SHAPE-1).
	RefusalCarriesResult Break = "refusal-carries-result"
	// UnknownToolNotFound looks an anonymous caller's tool name up before the
	// allowlist and answers an unknown one 404, leaking which names exist (AUTH-5).
	UnknownToolNotFound Break = "unknown-tool-404"
	// UnknownToolAnswered looks an anonymous caller's tool name up before the
	// allowlist and answers an unknown one 200 with a JSON-RPC error (AUTH-5).
	UnknownToolAnswered Break = "unknown-tool-200"
	// AnonymousPrivilegedReachesTool lets an anonymous call of the privileged
	// tool through the method allowlist (T401-5).
	AnonymousPrivilegedReachesTool Break = "anonymous-privileged-reaches-tool"
	// OffAllowlistAllowed lets anonymous methods off the allowlist through
	// to dispatch (T401-6).
	OffAllowlistAllowed Break = "off-allowlist-allowed"
	// PromptsListRefused refuses an anonymous prompts/list, which is on the
	// allowlist (AUTH-3).
	PromptsListRefused Break = "prompts-list-refused"
	// PeerCredentialAccepted accepts the peer instance's credential (AUTH-2).
	PeerCredentialAccepted Break = "peer-credential-accepted"
	// UnknownCredentialAccepted accepts any non-empty bearer token (T401-7).
	UnknownCredentialAccepted Break = "unknown-credential-accepted"
	// MalformedCredentialAnonymous treats an Authorization header it cannot
	// read (no token, another scheme) as no header at all (T401-7).
	MalformedCredentialAnonymous Break = "malformed-credential-anonymous"
	// ClosedPathNotError answers gate 3 refusals with the right text but
	// isError false (SHAPE-2).
	ClosedPathNotError Break = "closed-path-not-error"
	// ForbiddenWriteText alters the AFS_FORBIDDEN explanation of write (AFS-1).
	ForbiddenWriteText Break = "forbidden-write-text"
	// ForbiddenReadText alters the AFS_FORBIDDEN explanation of read (AFS-2).
	ForbiddenReadText Break = "forbidden-read-text"
	// ForbiddenListText alters the AFS_FORBIDDEN explanation of list (AFS-3).
	ForbiddenListText Break = "forbidden-list-text"
	// ForbiddenStatText alters the AFS_FORBIDDEN explanation of stat (AFS-4).
	ForbiddenStatText Break = "forbidden-stat-text"
	// NotFoundText alters the AFS_NOT_FOUND text (AFS-6).
	NotFoundText Break = "not-found-text"
	// OwnerBypassesPathPolicy lets the owner's credential open every path
	// (AUTH-7).
	OwnerBypassesPathPolicy Break = "owner-bypasses-path-policy"
	// NetworkReadIgnored does not honour the networkRead rule on /public
	// (SVC-6).
	NetworkReadIgnored Break = "network-read-ignored"
	// OverlayWriteForbidden does not let the resolver overlay open writes
	// (SVC-6, seen as AUTH-1's privileged write failing).
	OverlayWriteForbidden Break = "overlay-write-forbidden"
	// ContentToolsWithoutCollections lists the content tools although no
	// collections are declared (SVC-5).
	ContentToolsWithoutCollections Break = "content-tools-without-collections"
	// CapabilitiesMissing leaves the capabilities list out of afs_stat (SVC-4).
	CapabilitiesMissing Break = "capabilities-missing"
	// CapabilitiesListUnsupported lists write among the capabilities of the
	// read-only provider, which refuses it (DIAG-5).
	CapabilitiesListUnsupported Break = "capabilities-list-unsupported"
	// ListingOmitsChild lists /public without its child (SVC-3).
	ListingOmitsChild Break = "listing-omits-child"
	// ListingNamesMissing lists a child of /public that reading calls
	// missing (AFS-8).
	ListingNamesMissing Break = "listing-names-missing"
	// Gate4TextWithoutPath leaves the path out of the gate 4 error (RES-3).
	Gate4TextWithoutPath Break = "gate4-text-without-path"
	// ToolsListFails answers tools/list with HTTP 500 (SVC-2, DIAG-1).
	ToolsListFails Break = "tools-list-fails"
	// DiscoveryMissing answers /.well-known/mcp.json with 404 (SVC-7, EP-5).
	DiscoveryMissing Break = "discovery-missing"
	// ListRefused answers an anonymous afs_list, an allowlisted tool, with
	// the 401 (AUTH-3).
	ListRefused Break = "list-refused"
	// PingAllowed answers an anonymous ping, which source 5.3 leaves off
	// its closed list of methods (AUTH-3, T401-6).
	PingAllowed Break = "ping-allowed"
	// InitializeRefused refuses an anonymous initialize (EP-1, AUTH-3).
	InitializeRefused Break = "initialize-refused"
	// ResourcesListRefused refuses an anonymous resources/list (EP-1, AUTH-3).
	ResourcesListRefused Break = "resources-list-refused"
	// PathToolsUnknown is a host without the path tools, as a general MCP
	// server is: tools/list does not show them, any caller may call any
	// name, and a name it does not know answers 200 with isError "Tool ...
	// not found" (AUTH-5, SHAPE-2: a tool that does not exist is not reached).
	PathToolsUnknown Break = "path-tools-unknown"
	// ListedStatAnswers404 shows afs_stat in tools/list but answers its
	// calls with HTTP 404 (AUTH-5: a listed name answers a result or the 401).
	ListedStatAnswers404 Break = "listed-stat-answers-404"
	// NothingAfterPath ends the gate 4 error text with the path (RES-3).
	NothingAfterPath Break = "nothing-after-path"
	// RejectedCredentialReachesPolicy lets a rejected credential's call of
	// a closed path through to gate 3 (AUTH-6: gate 2 before gate 3).
	RejectedCredentialReachesPolicy Break = "rejected-credential-reaches-policy"
	// ProviderBeforePolicy asks the provider (gate 4) before the path
	// policy (gate 3) (AUTH-6).
	ProviderBeforePolicy Break = "provider-before-policy"
	// NotFoundBeforePolicy answers AFS_NOT_FOUND for a missing path under a
	// closed directory before the path policy (AUTH-6).
	NotFoundBeforePolicy Break = "not-found-before-policy"
	// DotDotOpensPath judges the path policy on the path as spelled and
	// resolves ".." only to read it (AUTH-10).
	DotDotOpensPath Break = "dot-dot-opens-path"
	// DecodesAfterPolicy percent-decodes the path after the path policy
	// judged it (AUTH-10).
	DecodesAfterPolicy Break = "decodes-after-policy"
	// ContentToolsMissing leaves the content tools out of tools/list
	// although collections are declared (SVC-5).
	ContentToolsMissing Break = "content-tools-missing"
	// BatchGatedByFirst answers batches, judging gates 1 and 2 on the first
	// request alone and applying that verdict to every request (AUTH-3).
	BatchGatedByFirst Break = "batch-gated-by-first"
	// EmptyHeaderAnonymous treats an Authorization header sent empty as no
	// header at all (T401-7).
	EmptyHeaderAnonymous Break = "empty-header-anonymous"
	// QueryCredentialAccepted takes the credential from the access_token
	// query parameter when no Authorization header is sent (AUTH-1).
	QueryCredentialAccepted Break = "query-credential-accepted"
	// CredentialClosesOpenPath refuses the owner's credential on /public,
	// which the networkRead rule opens to anonymous callers (AUTH-7).
	CredentialClosesOpenPath Break = "credential-closes-open-path"
	// CapabilitiesOnlyStat lists only stat among afs_stat's capabilities,
	// though the provider serves read and list too (SVC-4).
	CapabilitiesOnlyStat Break = "capabilities-only-stat"
	// GateReadsFirstName judges gate 1 on the first "name" of a tools/call
	// whose params name two tools, and dispatches the last (AUTH-3).
	GateReadsFirstName Break = "gate-reads-first-name"
	// ChallengeRealmRepeated names realm twice in every 401's challenge
	// (T401-9; RFC 6750 3: "The "realm" attribute MUST NOT appear more than
	// once").
	ChallengeRealmRepeated Break = "challenge-realm-repeated"
)

// MCPBreaks returns every MCP-side departure, in the order declared.
func MCPBreaks() []Break {
	return []Break{
		ChallengeMissing, ChallengeWithoutResourceMetadata, ChallengeWrongResourceMetadata,
		BodyNotUnauthorized, BodyDiffersByCause, BodyNotJSON, RefusalCarriesResult,
		UnknownToolNotFound, UnknownToolAnswered, AnonymousPrivilegedReachesTool,
		OffAllowlistAllowed, PromptsListRefused, PeerCredentialAccepted,
		UnknownCredentialAccepted, MalformedCredentialAnonymous, ClosedPathNotError,
		ForbiddenWriteText, ForbiddenReadText, ForbiddenListText, ForbiddenStatText,
		NotFoundText, OwnerBypassesPathPolicy, NetworkReadIgnored, OverlayWriteForbidden,
		ContentToolsWithoutCollections, CapabilitiesMissing, CapabilitiesListUnsupported,
		ListingOmitsChild, ListingNamesMissing, Gate4TextWithoutPath, ToolsListFails,
		DiscoveryMissing, ListRefused, PingAllowed, InitializeRefused, ResourcesListRefused,
		PathToolsUnknown, ListedStatAnswers404, NothingAfterPath, RejectedCredentialReachesPolicy,
		ProviderBeforePolicy, NotFoundBeforePolicy, DotDotOpensPath, DecodesAfterPolicy,
		ContentToolsMissing, BatchGatedByFirst, EmptyHeaderAnonymous, QueryCredentialAccepted,
		CredentialClosesOpenPath, CapabilitiesOnlyStat, GateReadsFirstName, ChallengeRealmRepeated,
	}
}
