package runner_test

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/conform-mcp/conform/harness/fakeauthz"
)

// The scenarios of the requirements drafted from the sentence inventory for
// the protected resource and the authorization server's metadata.
const (
	azChalOnceAnon      = "mcp-authorization/authorization_9_2_challenge_attributes.feature: The challenge to a request without a token names each attribute at most once"
	azChalOnceMalformed = "mcp-authorization/authorization_9_2_challenge_attributes.feature: The challenge to a refused token names each attribute at most once: a malformed token"
	azChalOnceUnknown   = "mcp-authorization/authorization_9_2_challenge_attributes.feature: The challenge to a refused token names each attribute at most once: a token the server never issued"
	azCodeMalformed     = "mcp-authorization/authorization_11_error_handling.feature: A refused token's error code agrees with the status: a malformed token"
	azCodeUnknown       = "mcp-authorization/authorization_11_error_handling.feature: A refused token's error code agrees with the status: a token the server never issued"
	azCodeScope         = "mcp-authorization/authorization_11_error_handling.feature: The error code of a refusal for scope agrees with the status"
	azSessionHandle     = "mcp-authorization/practices_2_4_2_session_handles.feature: A request in the session the server's own token was served in, without the token, answers 401"
	azScopeAtOnce       = "mcp-authorization/authorization_11_1_single_challenge.feature: The insufficient_scope challenge names every scope the operation needs at once"
	azSessionOtherUser  = "mcp-authorization/practices_2_4_2_session_handles.feature: The session the server's own token was served in is refused to another user's token"
	azPRMEmpty          = "mcp-authorization/discovery_2_protected_resource_metadata_claims.feature: The protected resource metadata omits claims with zero elements"
	azPRMURLs           = "mcp-authorization/discovery_2_protected_resource_metadata_claims.feature: The protected resource metadata names its resource without a fragment, and https on hosts that are not loopback"
	azPRMScopes         = "mcp-authorization/discovery_2_protected_resource_metadata_claims.feature: The protected resource metadata lists scopes_supported"
	asJSONType          = "mcp-authorization/discovery_3_authorization_server_metadata_claims.feature: The authorization server metadata is a JSON object served as application/json"
	asEmpty             = "mcp-authorization/discovery_3_authorization_server_metadata_claims.feature: The authorization server metadata omits claims with zero elements"
	asFragment          = "mcp-authorization/discovery_3_authorization_server_metadata_claims.feature: The authorization server names its issuer without query or fragment, and its endpoints without a fragment"
	asScopes            = "mcp-authorization/discovery_3_authorization_server_metadata_claims.feature: The authorization server metadata lists scopes_supported"
	asSigningAlgs       = "mcp-authorization/discovery_3_authorization_server_metadata_claims.feature: The authorization server never offers none as a client authentication signing algorithm"
)

// challengeReaders are the scenarios that read what a refusal's Bearer
// challenge says: none can run when it carries none.
var challengeReaders = []string{azCodeMalformed, azCodeUnknown, azChalOnceAnon, azChalOnceMalformed, azChalOnceUnknown}

// asClaims are the scenarios that read what the authorization server
// metadata holds: none can run when there is none to read.
var asClaims = []string{asJSONType, asEmpty, asFragment, asScopes, asSigningAlgs}

// prmClaims are the scenarios that read what the protected resource
// metadata holds.
var prmClaims = []string{azPRMEmpty, azPRMURLs, azPRMScopes}

var _ = Describe("the mcp-authorization pack against a fake protected resource or metadata with one departure the inventory found", func() {
	DescribeTable("fails exactly the scenarios of the broken requirement, with the requirement named",
		expectDeparture,
		Entry("a challenge naming scope twice", fakeauthz.ChallengeRepeatsAttribute,
			[]string{azChalOnceAnon, azChalOnceMalformed, azChalOnceUnknown}, nil, "scope more than once"),
		Entry("one missing scope challenged at a time", fakeauthz.ScopeChallengeIncremental, []string{azScopeAtOnce}, nil, "names mcp:admin; the first named mcp:write only"),
		Entry("invalid_request answered 401", fakeauthz.InvalidRequestUnauthorized, []string{azCodeMalformed}, nil, "RFC 6750 3.1"),
		Entry("a session that stands in for the token", fakeauthz.SessionIsCredential, []string{azSessionHandle}, nil, "expected 401"),
		Entry("a session served to another user's token", fakeauthz.SessionUnbound, []string{azSessionOtherUser}, nil, "a 4xx status"),
		Entry("an empty array in the protected resource metadata", fakeauthz.MetadataEmptyArray, []string{azPRMEmpty}, nil, "bearer_methods_supported"),
		Entry("a plain http jwks_uri off loopback", fakeauthz.MetadataPlainJWKS, []string{azPRMURLs}, nil, "jwks_uri http://rs.conform.invalid/jwks"),
		Entry("no scopes_supported in the protected resource metadata", fakeauthz.MetadataWithoutScopes, []string{azPRMScopes}, nil, "scopes_supported absent"),
		Entry("an authorization endpoint with a fragment", fakeauthz.EndpointWithFragment, []string{asFragment}, nil, "has a fragment"),
		Entry("authorization server metadata served as text/plain", fakeauthz.ASMetadataTextPlain, []string{asJSONType}, nil, "text/plain"),
		Entry("an empty array in the authorization server metadata", fakeauthz.ASMetadataEmptyArray, []string{asEmpty}, nil, "acr_values_supported"),
		// REFRESH-4 has no advertised scope to ask for.
		Entry("no scopes_supported in the authorization server metadata", fakeauthz.ASMetadataWithoutScopes, []string{asScopes}, []string{asWider}, "scopes_supported absent"),
		Entry("none among the signing algorithms", fakeauthz.SigningAlgNone, []string{asSigningAlgs}, nil, "lists none"),
		Entry("a JWT method without signing algorithms in RFC 8414 metadata", fakeauthz.JWTMethodWithoutAlgsRFC8414, []string{asSigningAlgs}, nil, "lists private_key_jwt and token_endpoint_auth_signing_alg_values_supported is absent"),
	)

	It("passes a JWT method without signing algorithms in an OpenID Connect Discovery document, where the member is OPTIONAL, as ORY Hydra's", func() {
		expectAuthzCompliant(runAuthz(fakeauthz.JWTMethodWithoutAlgs))
	})
})
