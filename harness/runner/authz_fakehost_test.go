package runner_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/spec"
)

// The mcp-authorization scenarios by ID, for saying which ones a departure
// must fail.
const (
	azServers       = "mcp-authorization/discovery_1_authorization_server_location.feature: The protected resource metadata names at least one authorization server"
	azDiscoverable  = "mcp-authorization/discovery_2_protected_resource_metadata.feature: The protected resource metadata is discoverable through the challenge or a well-known URI"
	azChallenged    = "mcp-authorization/discovery_2_protected_resource_metadata.feature: The metadata named by the 401 challenge describes the URL the client requested"
	azWellKnown     = "mcp-authorization/discovery_2_protected_resource_metadata.feature: The metadata at a well-known URI describes the resource the URI was built from"
	azNoToken       = "mcp-authorization/authorization_9_2_token_handling.feature: A request that needs authorization, sent without a token, answers 401 with a Bearer challenge"
	azEmptyToken    = "mcp-authorization/authorization_9_2_token_handling.feature: A malformed token is refused: an empty bearer token"
	azBadChars      = "mcp-authorization/authorization_9_2_token_handling.feature: A malformed token is refused: a token with characters RFC 6750 forbids"
	azUnknown       = "mcp-authorization/authorization_9_2_token_handling.feature: A token the server never issued answers 401 with a Bearer challenge"
	azExpired       = "mcp-authorization/authorization_9_2_token_handling.feature: An expired token answers 401"
	azOtherResource = "mcp-authorization/authorization_9_2_token_handling.feature: A token issued for another resource answers 401"
	azValid         = "mcp-authorization/authorization_9_2_token_handling.feature: A valid token issued for the server is served"
	azAuthz         = "mcp-authorization/authorization_1_2_protocol_requirements.feature: A server that requires authorization over HTTP uses MCP authorization"
	azTampered      = "mcp-authorization/authorization_9_2_token_handling.feature: The server's own token with one character changed answers 401"
	azQuery         = "mcp-authorization/authorization_9_2_token_handling.feature: A token in the URI query string is ignored"
	azChalScope     = "mcp-authorization/authorization_9_2_token_handling.feature: The challenge to a request without a token names the scope it needs"
	azChalNoError   = "mcp-authorization/authorization_9_2_token_handling.feature: The challenge to a request without a token carries no error code"
	azChalInvalid   = "mcp-authorization/authorization_9_2_token_handling.feature: The challenge to a token the server never issued says invalid_token"
	azOffline       = "mcp-authorization/authorization_10_refresh_tokens.feature: Neither the challenge nor the metadata asks for offline_access"
	azScope         = "mcp-authorization/authorization_11_1_scope_challenge.feature: A token without the scope an operation needs is refused 403"
	azScopeHeader   = "mcp-authorization/authorization_11_1_scope_challenge.feature: The 403 for insufficient scope carries an insufficient_scope challenge naming the scope and the metadata"
	azOrigin        = "mcp-authorization/transport_1_origin.feature: A request with an invalid Origin answers 403 Forbidden"
)

// runAuthz runs the mcp-authorization pack against a fake with the given departures.
func runAuthz(breaks ...fakeauthz.Break) outcome.Run {
	return runAuthzWith(func(*fakeauthz.Host, *target.Target) {}, breaks...)
}

// runAuthzWith runs the pack, but for what the fake gives nothing to judge
// (fakeRunnable), against a fake whose target the user's profile (or
// approval command) changed.
func runAuthzWith(change func(*fakeauthz.Host, *target.Target), breaks ...fakeauthz.Break) outcome.Run {
	return runAuthzTagged(fakeRunnable, change, breaks...)
}

// runAuthzTagged runs the scenarios of the pack the tag expression selects
// ("" for all) against a fake whose target change changed.
func runAuthzTagged(tags string, change func(*fakeauthz.Host, *target.Target), breaks ...fakeauthz.Break) outcome.Run {
	h := fakeauthz.Start(breaks...)
	DeferCleanup(h.Close)
	t := h.Target()
	change(h, t)
	run, err := runner.Run(context.Background(), runner.Options{Target: t, Pack: spec.Authorization, Tags: tags})
	Expect(err).NotTo(HaveOccurred())
	return run
}

// expectNotRun holds a run to failing nothing, leaving exactly notRun not
// run, each with a reason naming says.
func expectNotRun(run outcome.Run, notRun []string, says string) {
	named := slices.Clone(notRun)
	notRun = withInapplicable(notRun, nil)
	Expect(withStatus(run, outcome.Failed)).To(BeEmpty(), describeRun(run))
	Expect(withStatus(run, outcome.HarnessError)).To(BeEmpty(), describeRun(run))
	Expect(withStatus(run, outcome.NotRun)).To(Equal(notRun), describeRun(run))
	for _, r := range run.Results {
		if r.Status == outcome.NotRun && slices.Contains(named, r.ID) {
			Expect(r.Reason).To(ContainSubstring(says), r.ID)
		}
	}
}

func withStatus(run outcome.Run, s outcome.Status) []string {
	var ids []string
	for _, r := range run.Results {
		if r.Status == s {
			ids = append(ids, r.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

func describeRun(run outcome.Run) string {
	var b []string
	for _, r := range run.Results {
		if r.Status != outcome.Passed {
			b = append(b, fmt.Sprintf("%s: %s %.80s %.120v", r.Scenario, r.Status, r.Reason, r.Departure))
		}
	}
	return fmt.Sprint(b)
}

// expectDeparture runs the pack against a fake with one departure and holds
// the run to it: exactly failed fail, each naming says; exactly notRun are
// not run; every other scenario passes.
func expectDeparture(b fakeauthz.Break, failed []string, notRun []string, says string) {
	run := runAuthz(b)
	slices.Sort(failed)
	notRun = withInapplicable(notRun, failed)
	Expect(withStatus(run, outcome.Failed)).To(Equal(failed), describeRun(run))
	Expect(withStatus(run, outcome.NotRun)).To(Equal(notRun), describeRun(run))
	Expect(withStatus(run, outcome.HarnessError)).To(BeEmpty(), describeRun(run))
	for _, r := range run.Results {
		if r.Status == outcome.Failed {
			Expect(r.Departure.Error()).To(ContainSubstring(says), r.ID)
		}
	}
}

var _ = Describe("the mcp-authorization pack against a fake that chooses unlike the reference host", func() {
	It("passes everything: sessions, SSE, metadata at the endpoint's path only, an issuer on another origin with a path", func() {
		run := runAuthz()
		expectAuthzCompliant(run)
	})

	// A server with a registration limit is asked as little as the pack
	// allows (issue 16 item 2): the run's own client, whose answer REG-2,
	// REG-8, REG-10, REG-11 and REG-13 judge, a second client for the rules
	// that bind codes and refresh tokens to their client, one with other
	// redirect_uris for REG-9, one with unknown metadata for REG-12, and
	// REDIR-4's, whose redirect URI carries a query; the refusals' positive
	// controls reuse the run's own client.
	It("has the authorization server accept five registrations in a whole run", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		run, err := runner.Run(context.Background(), runner.Options{Target: h.Target(), Pack: spec.Authorization, Tags: fakeRunnable})
		Expect(err).NotTo(HaveOccurred())
		expectAuthzCompliant(run)
		Expect(h.Registered()).To(Equal(5))
	})
	It("reuses the client the pre-flight registered for its tokens as its second client, so a whole run registers one fewer", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		t := h.Target()
		t.Tokens.Client = target.RegisteredClient{Issuer: h.Issuer() + "/", ID: fakeauthz.ConfidentialID}
		run, err := runner.Run(context.Background(), runner.Options{Target: t, Pack: spec.Authorization, Tags: fakeRunnable})
		Expect(err).NotTo(HaveOccurred())
		expectAuthzCompliant(run)
		Expect(h.Registered()).To(Equal(4))
	})
	It("registers its own client when the pre-flight's is another authorization server's", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		t := h.Target()
		t.Tokens.Client = target.RegisteredClient{Issuer: "https://elsewhere.example", ID: "not-here"}
		run, err := runner.Run(context.Background(), runner.Options{Target: t, Pack: spec.Authorization, Tags: fakeRunnable})
		Expect(err).NotTo(HaveOccurred())
		expectAuthzCompliant(run)
		Expect(h.Registered()).To(Equal(5))
	})
})

var _ = Describe("the mcp-authorization pack against a fake with one departure", func() {
	DescribeTable("fails exactly the scenarios of the broken requirement, with the requirement named",
		expectDeparture,
		Entry("no authorization server", fakeauthz.MetadataWithoutServers, []string{azServers}, asAll(), "authorization_servers"),
		Entry("no metadata to be found", fakeauthz.MetadataUndiscoverable,
			[]string{azServers, azDiscoverable}, append(asAll(), append(prmClaims, azChallenged, azWellKnown, azOffline)...), "discovery.2"),
		Entry("metadata that is not JSON", fakeauthz.MetadataNotJSON,
			[]string{azServers, azDiscoverable, azChallenged, azWellKnown}, append(asAll(), append(prmClaims, azOffline)...), "a JSON object"),
		Entry("a resource that is the origin", fakeauthz.ResourceIsOrigin, []string{azChallenged, azWellKnown}, nil, "RFC 9728 3.3"),
		Entry("a request served without a token", fakeauthz.AnonymousServed, []string{azNoToken},
			[]string{azChallenged, azQuery, azChalScope, azChalNoError, azAuthz, azChalOnceAnon, azSessionHandle}, "HTTP status"),
		Entry("a 401 without a challenge", fakeauthz.ChallengeMissing,
			[]string{azNoToken, azEmptyToken, azBadChars, azUnknown, azTampered, azExpired, azOtherResource}, append([]string{azChallenged, azChalScope, azChalNoError, azChalInvalid, tkChallengeText}, challengeReaders...), "Bearer challenge"),
		Entry("a challenge without auth-params", fakeauthz.ChallengeWithoutParams,
			[]string{azNoToken, azEmptyToken, azBadChars, azUnknown, azTampered, azExpired, azOtherResource}, append([]string{azChallenged, azChalScope, azChalNoError, azChalInvalid, tkChallengeText}, challengeReaders...), "at least one auth-param"),
		Entry("a malformed token answered 400 without a challenge", fakeauthz.MalformedBareBadRequest, []string{azEmptyToken, azBadChars}, []string{azCodeMalformed, azChalOnceMalformed}, "Bearer challenge"),
		Entry("metadata served as text/plain", fakeauthz.MetadataNotJSONType, []string{azServers, azDiscoverable, azChallenged, azWellKnown}, prmClaims, "application/json"),
		Entry("a token in the query served", fakeauthz.QueryTokenAccepted, []string{azQuery}, nil, "expected 401"),
		Entry("a token changed in its second half served", fakeauthz.TamperAccepted, []string{azTampered}, nil, "expected 401"),
		Entry("no scope in the challenge", fakeauthz.ChallengeWithoutScope, []string{azChalScope}, nil, "scope"),
		Entry("no error for a refused token", fakeauthz.InvalidTokenUnnamed, []string{azChalInvalid}, []string{azCodeMalformed, azCodeUnknown, tkChallengeText}, "invalid_token"),
		Entry("an error code without a token, none with one", fakeauthz.ErrorWithoutToken, []string{azChalNoError, azChalInvalid}, []string{azCodeMalformed, azCodeUnknown, tkChallengeText}, "error"),
		Entry("a malformed token served", fakeauthz.MalformedServed, []string{azEmptyToken, azBadChars}, []string{azCodeMalformed, azChalOnceMalformed}, "400 or 401"),
		Entry("an unknown token served", fakeauthz.UnknownAccepted, []string{azUnknown, azTampered}, []string{azChalInvalid, azCodeUnknown, azChalOnceUnknown, tkChallengeText, tkCodeReplay}, "expected 401"),
		Entry("an expired token served", fakeauthz.ExpiredAccepted, []string{azExpired}, nil, "expected 401"),
		Entry("a token for another resource served", fakeauthz.AudienceIgnored, []string{azOtherResource}, nil, "expected 401"),
		Entry("every valid token refused", fakeauthz.ValidRefused, []string{azValid},
			[]string{azOrigin, azUnknown, azTampered, azExpired, azOtherResource, azQuery, azScope, azScopeHeader, azCodeMalformed, azCodeUnknown, azCodeScope, azSessionHandle, azSessionOtherUser, azScopeAtOnce, tkCodeReplay, tkInvalidReplay}, "HTTP status"),
		Entry("scope not enforced", fakeauthz.ScopeNotEnforced, []string{azScope}, []string{azScopeHeader, azCodeScope, azScopeAtOnce}, "expected 403"),
		Entry("a scope challenge naming no scope", fakeauthz.ScopeChallengeBare, []string{azScopeHeader}, []string{azScopeAtOnce}, "scope"),
		Entry("offline_access asked for", fakeauthz.OfflineAccessAdvertised, []string{azOffline}, nil, "offline_access"),
		Entry("the Origin ignored", fakeauthz.OriginIgnored, []string{azOrigin}, nil, "expected 403"),
	)
})

// The authorization server's scenarios by ID.
const (
	asFound         = "mcp-authorization/discovery_3_authorization_server_metadata.feature: The authorization server metadata is found at the well-known URIs in the specification's order"
	asTLS           = "mcp-authorization/discovery_3_authorization_server_metadata.feature: The authorization server names its endpoints with https on hosts that are not loopback"
	asIssuer        = "mcp-authorization/discovery_3_authorization_server_metadata.feature: The authorization server metadata names the issuer its well-known URI was built from"
	asS256          = "mcp-authorization/security_4_authorization_code_protection.feature: The authorization server advertises PKCE with S256"
	asNoChallenge   = "mcp-authorization/security_4_authorization_code_protection.feature: An authorization request without code_challenge is refused"
	asPlain         = "mcp-authorization/security_4_authorization_code_protection.feature: An authorization request with code_challenge_method plain, which the server does not advertise, gets invalid_request"
	asNoVerifier    = "mcp-authorization/security_4_authorization_code_protection.feature: Redeeming a code without its code_verifier is refused"
	asBadVerifier   = "mcp-authorization/security_4_authorization_code_protection.feature: Redeeming a code with a code_verifier that does not match is refused with invalid_grant"
	asCodeOnce      = "mcp-authorization/security_4_authorization_code_protection.feature: An authorization code is redeemed once and refused with invalid_grant the second time"
	asRedirect      = "mcp-authorization/security_6_open_redirection.feature: The authorization endpoint never redirects to a redirect_uri the client did not register"
	asTokenRedir    = "mcp-authorization/security_6_open_redirection.feature: Redeeming a code with another redirect_uri than its authorization request's is refused, if at all, with invalid_grant"
	asUnknownID     = "mcp-authorization/security_6_open_redirection.feature: The authorization endpoint never redirects for a client_id it never issued"
	asStateOK       = "mcp-authorization/security_6_open_redirection.feature: An approved authorization response carries the state exactly as sent"
	asStateError    = "mcp-authorization/security_6_open_redirection.feature: An authorization error response carries the state exactly as sent"
	asCORS          = "mcp-authorization/security_6_open_redirection.feature: The authorization endpoint serves no cross-origin request"
	asCodeClient    = "mcp-authorization/security_4_authorization_code_protection.feature: An authorization code is redeemed only by the client it was issued to"
	asRefreshClient = "mcp-authorization/security_2_token_theft.feature: A refresh token is used only by the client it was issued to"
	asWider         = "mcp-authorization/security_2_token_theft.feature: A refresh cannot widen the scope granted"
	asRetarget      = "mcp-authorization/security_2_token_theft.feature: A refresh cannot obtain a token for a resource never consented"
	asLifetime      = "mcp-authorization/security_2_token_theft.feature: A token response says how long the access token lives"
	asIssSuccess3   = "mcp-authorization/authorization_7_1_authorization_response_validation.feature: A successful authorization response carries iss"
	asLoopback      = "mcp-authorization/security_6_open_redirection.feature: A loopback IP redirect URI is accepted on another port than the registered one's"
	asTokenResp     = "mcp-authorization/security_4_authorization_code_protection.feature: A token response names its token_type and is not stored by caches"
	asRotated       = "mcp-authorization/security_2_token_theft.feature: A refresh answers with a new refresh token"
	asReplay        = "mcp-authorization/security_2_token_theft.feature: A refresh token used once is refused when presented again"
	asIssSent       = "mcp-authorization/authorization_7_1_authorization_response_validation.feature: An authorization error response carries iss"
	asIssAdvert     = "mcp-authorization/authorization_7_1_authorization_response_validation.feature: An authorization server that sends iss advertises it"
	asIssError      = "mcp-authorization/authorization_7_1_authorization_response_validation.feature: An authorization server that advertises iss names itself in an error response"
	asIssSuccess    = "mcp-authorization/authorization_7_1_authorization_response_validation.feature: An authorization server that advertises iss names itself in a successful response"
	asCIMD          = "mcp-authorization/authorization_5_client_registration.feature: The authorization server advertises Client ID Metadata Documents"
	asRegistration  = "mcp-authorization/authorization_5_client_registration.feature: The advertised registration endpoint registers a public client"
	asRegHTTP       = "mcp-authorization/authorization_5_client_registration.feature: Registration refuses a redirect URI that is neither localhost nor HTTPS"
	asRegFragment   = "mcp-authorization/authorization_5_client_registration.feature: Registration refuses a redirect URI with a fragment"
)

// flowScenarios are the scenarios that run the code flow with a registered client.
var flowScenarios = append([]string{asNoChallenge, asPlain, asNoVerifier, asBadVerifier, asCodeOnce, asRedirect, asTokenRedir,
	asRotated, asReplay, asIssSent, asIssAdvert, asIssError, asIssSuccess, asUnknownID, asStateOK, asStateError, asCORS, asTokenResp, asLoopback,
	asCodeClient, asRefreshClient, asLifetime, asIssSuccess3, asWider, asRetarget, azScopeAtOnce}, tokenScenarios...)

// asAll are the authorization server's scenarios: none can run when the
// protected resource metadata names no authorization server to check.
func asAll() []string {
	return slices.Concat([]string{asFound, asIssuer, asS256, asCIMD, asRegistration, asRegHTTP, asRegFragment, asTLS}, registerScenarios, flowScenarios, asClaims)
}

var _ = Describe("the mcp-authorization pack against a fake authorization server with one departure", func() {
	DescribeTable("fails exactly the scenarios of the broken requirement, with the requirement named",
		expectDeparture,
		Entry("no metadata", fakeauthz.ASMetadataMissing, []string{asFound}, slices.Concat([]string{asIssuer, asS256, asCIMD, asRegistration, asRegHTTP, asRegFragment, asTLS}, registerScenarios, flowScenarios, asClaims), "discovery.3"),
		Entry("another issuer", fakeauthz.ASIssuerMismatch, []string{asIssuer, asIssError, asIssSuccess}, nil, "issuer"),
		Entry("no authorization endpoint", fakeauthz.ASEndpointsMissing, []string{asFound}, append(slices.Clone(flowScenarios), regDistinct), "authorization_endpoint"),
		Entry("S256 not advertised", fakeauthz.S256NotAdvertised, []string{asS256}, nil, "S256"),
		// The rules about error responses read the one an unsupported
		// response_type gets instead.
		Entry("code_challenge not required", fakeauthz.ChallengeNotRequired, []string{asNoChallenge}, []string{asNoChallErr}, "a refusal"),
		Entry("plain accepted", fakeauthz.PlainAccepted, []string{asPlain}, nil, "so the method was ignored"),
		Entry("plain refused with another error", fakeauthz.PlainOtherError, []string{asPlain}, nil, "error=invalid_request"),
		Entry("code_verifier not checked", fakeauthz.VerifierNotChecked, []string{asNoVerifier, asBadVerifier}, []string{tkTokenErrText}, "OAuth 2.1 3.2.4"),
		Entry("redirect URIs matched by prefix", fakeauthz.RedirectPrefixMatched, []string{asRedirect}, nil, "unregistered redirect_uri"),
		Entry("another redirect_uri refused with invalid_request", fakeauthz.TokenRedirectWrongError, []string{asTokenRedir}, nil, "invalid_grant"),
		Entry("state changed on its way back", fakeauthz.StateNotEchoed, []string{asStateOK, asStateError}, nil, "exactly as sent"),
		Entry("a client_id it never issued redirected", fakeauthz.UnknownClientRedirected, []string{asUnknownID}, nil, "no redirect"),
		Entry("CORS at the authorization endpoint", fakeauthz.CORSAllowed, []string{asCORS}, nil, "OAuth 2.1 3.1"),
		Entry("an endpoint on plain http off loopback", fakeauthz.PlainHTTPEndpoint, []string{asTLS}, nil, "revocation_endpoint"),
		Entry("any redirect URI registered", fakeauthz.RegistrationAnyRedirect, []string{asRegHTTP, asRegFragment, regRelative, regPrivate, asPlainHTTP}, nil, ""),
		Entry("a code redeemed by another client", fakeauthz.CodeClientUnbound, []string{asCodeClient}, nil, "invalid_grant"),
		Entry("a refresh token used by another client", fakeauthz.RefreshClientUnbound, []string{asRefreshClient}, nil, "OAuth 2.1 3.2.4"),
		Entry("a refresh that widens scope", fakeauthz.RefreshWidens, []string{asWider}, nil, "leaves openid out"),
		Entry("tokens without expires_in", fakeauthz.NoExpiresIn, []string{asLifetime}, nil, "expires_in"),
		Entry("a loopback redirect URI held to its port", fakeauthz.LoopbackPortFixed, []string{asLoopback}, nil, "other port"),
		Entry("no response_types_supported", fakeauthz.ResponseTypesMissing, []string{asFound}, nil, "response_types_supported"),
		Entry("a token response caches may store", fakeauthz.TokenCacheable, []string{asTokenResp}, nil, "no-store"),
		Entry("a code redeemed twice", fakeauthz.CodeReusable, []string{asCodeOnce}, []string{tkCodeReplay}, "invalid_grant"),
		Entry("refresh tokens not rotated", fakeauthz.RefreshNotRotated, []string{asRotated, asReplay}, []string{tkRotationReplay, tkRefreshScope}, "OAuth 2.1"),
		Entry("a used refresh token accepted", fakeauthz.RefreshReplayAccepted, []string{asReplay}, []string{tkRotationReplay}, "OAuth 2.1 3.2.4"),
		Entry("iss advertised, never sent", fakeauthz.IssMissing, []string{asIssSent, asIssError, asIssSuccess, asIssSuccess3}, []string{asIssAdvert}, "iss"),
		Entry("iss sent, not advertised", fakeauthz.IssNotAdvertised, []string{asIssAdvert}, []string{asIssError, asIssSuccess}, "RFC 9207 2.3"),
		Entry("Client ID Metadata Documents not advertised", fakeauthz.CIMDNotAdvertised, []string{asCIMD}, nil, "client_id_metadata_document_supported"),
		Entry("registration answered 200 without a client_id", fakeauthz.RegistrationBroken, []string{asRegistration}, slices.Concat([]string{asRegHTTP, asRegFragment}, registeredAnswer(), flowScenarios), "RFC 7591"),
		Entry("registration endpoint unreachable", fakeauthz.RegistrationUnreachable, slices.Concat([]string{asRegistration, asRegHTTP, asRegFragment}, slices.DeleteFunc(slices.Clone(registerScenarios), func(id string) bool { return id == regDistinct })),
			append(slices.Clone(flowScenarios), regDistinct), "registration at"),
		Entry("a refresh that obtains a token for another resource", fakeauthz.RefreshRetargets, []string{asRetarget}, nil, "other-resource.conform.invalid"),
		Entry("every refresh refused", fakeauthz.RefreshRefused, []string{asRotated}, append([]string{asReplay, asRefreshClient, asWider, asRetarget}, tokenRefreshScenarios...), "access_token"),
		Entry("a CORS preflight allowed at the authorization endpoint", fakeauthz.CORSPreflightAllowed, []string{asCORS}, nil, "cors-probe.conform.invalid"),
	)
})

var _ = Describe("the mcp-authorization pack against an authorization server that throttles registration", func() {
	It("leaves what needs a registered client not run, never failed, and says how to go on", func() {
		run := runAuthz(fakeauthz.RegistrationThrottled)
		Expect(withStatus(run, outcome.Failed)).To(BeEmpty(), describeRun(run))
		notRun := slices.Concat(regScenarios, registerScenarios, flowScenarios)
		Expect(withStatus(run, outcome.NotRun)).To(Equal(withInapplicable(notRun, nil)), describeRun(run))
		for _, r := range run.Results {
			if r.Status == outcome.NotRun && slices.Contains(notRun, r.ID) {
				Expect(r.Reason).To(ContainSubstring("throttled by the host's rate limit: HTTP 429, Retry-After 60"), r.ID)
			}
		}
		Expect(run.ExitCode()).To(Equal(outcome.ExitIncomplete))
	})
})

var _ = Describe("the mcp-authorization pack against a server that does not implement authorization", func() {
	It("runs only the transport's Origin check, fails nothing, and says why: authorization is optional", func() {
		run := runAuthz(fakeauthz.AnonymousServed, fakeauthz.MetadataUndiscoverable)
		Expect(withStatus(run, outcome.Passed)).To(Equal([]string{azOrigin}), describeRun(run))
		Expect(withStatus(run, outcome.NotRun)).To(HaveLen(len(run.Results)-1), describeRun(run))
		for _, r := range run.Results {
			if r.Status == outcome.NotRun {
				Expect(r.Reason).To(ContainSubstring("does not implement MCP authorization, which is optional"))
				Expect(r.Inapplicable()).To(BeTrue(), r.ID)
			}
		}
		// What does not apply leaves nothing undone: the run is complete.
		Expect(run.ExitCode()).To(Equal(outcome.ExitPassed))
	})
})

// regScenarios are the scenarios that register a client themselves.
var regScenarios = []string{asRegistration, asRegHTTP, asRegFragment}

// controlled are the refusals at the authorization endpoint judged only after
// the run's positive control, the valid flow, succeeded.
// LOOPBACK-1 is among them: a redirect refused on another port means nothing
// until the registered one was seen to work.
var controlled = []string{asNoChallenge, asPlain, asRedirect, asUnknownID, asLoopback}

// codeScenarios are the scenarios that need a code the approval command got.
var codeScenarios = append([]string{asNoVerifier, asBadVerifier, asCodeOnce, asTokenRedir, asRotated, asReplay, asIssSuccess, asStateOK, asTokenResp,
	asCodeClient, asRefreshClient, asLifetime, asIssSuccess3, asWider, asRetarget, azScopeAtOnce}, tokenScenarios...)

var _ = Describe("the mcp-authorization pack when the profile or a server's allowed choice leaves a check unable to run", func() {
	It("passes whole a server that speaks only MCP 2026-07-28 and checks its headers before the token, but for the session it has not", func() {
		run := runAuthz(fakeauthz.Speaks2026Only)
		expectNotRun(run, []string{azSessionHandle, azSessionOtherUser}, "opened no session")
		Expect(run.Revision).To(Equal("2026-07-28"))
	})
	It("passes whole a server that speaks both eras, taking 2026-07-28, but for the session a 2026-07-28 request opens none of", func() {
		run := runAuthz(fakeauthz.SpeaksBothEras)
		expectNotRun(run, []string{azSessionHandle, azSessionOtherUser}, "opened no session")
		Expect(run.Revision).To(Equal("2026-07-28"))
	})
	It("passes whole a server that takes any port on a localhost redirect URI, as on a loopback IP literal", func() {
		expectAuthzCompliant(runAuthz(fakeauthz.LocalhostPortFree))
	})
	It("names the earlier revision a server that keeps sessions took", func() {
		Expect(runAuthz().Revision).To(Equal("2025-06-18"), "the version it chose in initialize")
	})
	It("accepts a malformed token answered 400, as RFC 6750 3.1 says it should be", func() {
		run := runAuthz(fakeauthz.MalformedBadRequest)
		expectAuthzCompliant(run)
	})
	It("leaves registration not run when the server refuses it with an RFC 7591 error, naming the profile key", func() {
		expectRegistrationNotRun(runAuthz(fakeauthz.RegistrationRefused))
	})
	It("leaves every authorization server check but discovery not run, naming the key, when the profile's issuer serves no metadata", func() {
		run := runAuthzWith(func(h *fakeauthz.Host, t *target.Target) { t.Profile.MCPAuthorization.Issuer = h.RS.URL + "/nowhere" })
		Expect(withStatus(run, outcome.Failed)).To(Equal([]string{asFound}), describeRun(run))
		notRun := slices.Concat([]string{asIssuer, asS256, asCIMD, asRegistration, asRegHTTP, asRegFragment, asTLS}, registerScenarios, flowScenarios, asClaims)
		Expect(withStatus(run, outcome.NotRun)).To(Equal(withInapplicable(notRun, nil)), describeRun(run))
		for _, r := range run.Results {
			switch r.Status {
			case outcome.NotRun:
				Expect(r.Reason).To(ContainSubstring("mcp_authorization.issuer"), r.ID)
			case outcome.Failed:
				Expect(r.Departure.Error()).To(ContainSubstring("mcp_authorization.issuer"), r.ID)
			}
		}
	})
	It("runs no authorization server check, naming the key, when the profile's issuer cannot be reached", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			t.Profile.MCPAuthorization.Issuer = "http://127.0.0.1:1/tenant"
		})
		expectNotRun(run, asAll(), "mcp_authorization.issuer")
	})
	It("leaves what needs a code, and the refusals its control guards, not run when the approval command's person denies the request", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			t.ApproveAuthorization = func(context.Context, string) (string, error) {
				return t.Profile.MCPAuthorization.RedirectURI + "?error=access_denied&state=x", nil
			}
		})
		expectNotRun(run, append(slices.Clone(codeScenarios), controlled...), "access_denied")
	})
	It("leaves what needs a code not run when the approval command hands back no redirect to the redirect_uri", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			t.ApproveAuthorization = func(context.Context, string) (string, error) { return "https://login.example/signin", nil }
		})
		expectNotRun(run, append(slices.Clone(codeScenarios), controlled...), "https://login.example/signin")
	})
	It("leaves what needs a code not run when the authorization server refuses the valid request, quoting its error and the key", func() {
		run := runAuthz(fakeauthz.ApprovalRefusedInvalidScope)
		expectNotRun(run, append(slices.Clone(codeScenarios), controlled...), "mcp_authorization.scope")
	})
	DescribeTable("passes whole an MCP endpoint at any path, taking the URL the server's users give as the endpoint",
		func(where fakeauthz.Break) {
			run := runAuthz(where)
			expectAuthzCompliant(run)
		},
		Entry("at the root", fakeauthz.EndpointAtRoot),
		Entry("at a nested path", fakeauthz.EndpointNested),
	)
	It("names a server with its own authorization scheme once, as a SHOULD, and finds the rest not applicable", func() {
		run := runAuthz(fakeauthz.BasicAuthOnly)
		Expect(withStatus(run, outcome.Failed)).To(Equal([]string{azAuthz}), describeRun(run))
		Expect(run.Tolerated(resultOf(run, azAuthz))).To(BeTrue())
		Expect(withStatus(run, outcome.Passed)).To(BeEmpty(), describeRun(run))
		for _, r := range run.Results {
			if r.Status == outcome.NotRun && r.ID != azOrigin {
				Expect(r.Reason).To(ContainSubstring("not applicable"), r.ID)
			}
		}
		Expect(run.ExitCode()).NotTo(Equal(outcome.ExitFailed))
	})
	It("passes an authorization server that serves confidential clients only, with the client's secret from the environment", func() {
		GinkgoT().Setenv("CONFORM_TEST_CLIENT_SECRET", fakeauthz.ConfidentialSecret)
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			t.Profile.MCPAuthorization.ClientID = fakeauthz.ConfidentialID
			t.Profile.MCPAuthorization.ClientSecretEnv = "CONFORM_TEST_CLIENT_SECRET"
		}, fakeauthz.ConfidentialOnly)
		// PKCE-2 and rotation bind the server for public clients alone;
		// PKCE-6 binds it for confidential ones, and runs.
		expectOffered(run, []string{asConfNoChall}, nil, slices.Concat([]string{asRegistration, asRegHTTP, asRegFragment, asCodeClient, asRefreshClient, asNoChallenge, asRotated, asReplay, asRedirQuery, asNoChallErr, tkRotationReplay}, registeredAnswer()), "")
		for _, id := range []string{asRegistration, asRegHTTP, asRegFragment, asCodeClient, asRefreshClient, asRedirQuery} {
			Expect(resultOf(run, id).Reason).To(ContainSubstring("regist"), id)
		}
		Expect(resultOf(run, asNoChallErr).Reason).To(ContainSubstring("public clients"))
	})
	It("leaves what needs a second client not run, naming the key, when the profile gives the one client and nothing registers another", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			t.Profile.MCPAuthorization.ClientID = fakeauthz.ConfidentialID
		}, fakeauthz.NoRegistration)
		expectNotRun(run, slices.Concat([]string{asRegistration, asRegHTTP, asRegFragment, asCodeClient, asRefreshClient, asRedirQuery}, registerScenarios), "registration_endpoint")
		for _, id := range []string{asCodeClient, asRefreshClient} {
			Expect(resultOf(run, id).Reason).To(ContainSubstring("mcp_authorization.second_client_id"), id)
		}
	})
	It("judges a code and a refresh token against the profile's second client when nothing registers one", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			t.Profile.MCPAuthorization.ClientID = fakeauthz.ConfidentialID
			t.Profile.MCPAuthorization.SecondClientID = fakeauthz.SecondID
		}, fakeauthz.NoRegistration)
		expectNotRun(run, slices.Concat([]string{asRegistration, asRegHTTP, asRegFragment, asRedirQuery}, registerScenarios), "registration_endpoint")
		for _, id := range []string{asCodeClient, asRefreshClient} {
			Expect(resultOf(run, id).Status).To(Equal(outcome.Passed), id)
		}
	})
	It("asks a refresh for the profile's other_resource, a resource the authorization server knows, when the profile names one", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			t.Profile.MCPAuthorization.OtherResource = "https://other.example/mcp"
		}, fakeauthz.RefreshRetargets)
		Expect(withStatus(run, outcome.Failed)).To(Equal([]string{asRetarget}), describeRun(run))
		Expect(resultOf(run, asRetarget).Departure.Error()).To(ContainSubstring("https://other.example/mcp"))
	})
	It("leaves REFRESH-5 not run when a refresh for another resource is served with a token that is no readable JWT", func() {
		expectNotRun(runAuthz(fakeauthz.RefreshResourceIgnored), []string{asRetarget}, "no readable JWT")
	})
	It("leaves the flows not run, never failed, saying the server serves confidential clients, when no secret is given", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			t.Profile.MCPAuthorization.ClientID = fakeauthz.ConfidentialID
		}, fakeauthz.ConfidentialOnly)
		Expect(withStatus(run, outcome.Failed)).To(BeEmpty(), describeRun(run))
		for _, id := range []string{asNoVerifier, asBadVerifier, asCodeOnce, asRotated} {
			Expect(resultOf(run, id).Status).To(Equal(outcome.NotRun), id)
			Expect(resultOf(run, id).Reason).To(ContainSubstring("mcp_authorization.client_secret_env"), id)
		}
	})
	It("reports a server that stops answering mid-run as a harness error naming the first scenario that lost it, failing nothing", func() {
		run := runAuthz(fakeauthz.StopsAnswering)
		Expect(withStatus(run, outcome.Failed)).To(BeEmpty(), describeRun(run))
		lost := withStatus(run, outcome.HarnessError)
		Expect(lost).NotTo(BeEmpty(), describeRun(run))
		first := ""
		for _, r := range run.Results {
			if r.Status == outcome.HarnessError {
				Expect(r.Reason).To(ContainSubstring("the target stopped answering"), r.ID)
				if first == "" {
					first = r.Scenario
				}
				Expect(r.Reason).To(ContainSubstring(fmt.Sprintf("first in the scenario %q", first)), r.ID)
			}
		}
		Expect(run.ExitCode()).To(Equal(outcome.ExitFailed))
	})
	It("passes an authorization server that needs the scope its challenge names, choosing the scope as a client must", func() {
		run := runAuthz(fakeauthz.ScopeRequired)
		expectAuthzCompliant(run)
	})
	It("passes a server that redeems a code whatever redirect_uri comes with it (OAuth 2.1 10.2)", func() {
		run := runAuthz(fakeauthz.TokenRedirectIgnored)
		expectAuthzCompliant(run)
	})
	It("passes an authorization server that lets only native clients vary a loopback port, registering as MCP clients must", func() {
		run := runAuthz(fakeauthz.LoopbackPortsNativeOnly)
		expectAuthzCompliant(run)
	})
	It("says, when no error response can be provoked, that there is none to read, not that iss is missing", func() {
		reason := resultOf(runAuthz(fakeauthz.ChallengeNotRequired, fakeauthz.ResponseTypeIgnored), asStateError).Reason
		Expect(reason).To(ContainSubstring("no authorization error response to read"))
		Expect(reason).NotTo(ContainSubstring("read iss from"))
	})
	It("leaves PKCE-3 not run against a server that honours plain though it does not list it, saying so", func() {
		expectNotRun(runAuthz(fakeauthz.PlainHonoured), []string{asPlain}, "supports plain")
	})
	It("leaves the flow, REDIR-1 included, not run when the approval command fails on a consent page, saying why", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			t.ApproveAuthorization = func(context.Context, string) (string, error) { return "", fmt.Errorf("browser exited 1") }
		}, fakeauthz.ConsentPage)
		notRun := slices.DeleteFunc(slices.Clone(flowScenarios), func(id string) bool { return id == asCORS || id == asGET })
		expectNotRun(run, notRun, "")
		for _, id := range controlled {
			for _, r := range run.Results {
				if r.ID == id {
					Expect(r.Reason).To(ContainSubstring("browser exited 1"), id)
				}
			}
		}
	})
	It("leaves CORS-1 and LOOPBACK-1 not run, never failed, when the authorization endpoint answers the valid request with an error", func() {
		run := runAuthz(fakeauthz.AuthorizationEndpointDown)
		Expect(withStatus(run, outcome.Failed)).To(BeEmpty(), describeRun(run))
		Expect(resultOf(run, asCORS).Status).To(Equal(outcome.NotRun))
		Expect(resultOf(run, asCORS).Reason).To(ContainSubstring("authorization_endpoint"))
	})
	It("leaves the flow, REDIR-1 included, not run on a consent page without an approval command", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) { t.ApproveAuthorization = nil }, fakeauthz.ConsentPage)
		Expect(withStatus(run, outcome.Failed)).To(BeEmpty(), describeRun(run))
		notRun := slices.DeleteFunc(slices.Clone(flowScenarios), func(id string) bool { return id == asCORS || id == asGET })
		Expect(withStatus(run, outcome.NotRun)).To(Equal(withInapplicable(notRun, nil)), describeRun(run))
	})
	It("leaves TOK-6, and the refusals it controls, not run when the credential is refused 403, insufficient permissions", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			t.Credential = t.Tokens.Limited
			t.Profile.MCPAuthorization.ProtectedRequest = *t.Profile.MCPAuthorization.ScopedRequest
		})
		// SCOPE-1 and SCOPE-3 pass: 403 insufficient_scope is the answer
		// they ask for (issue 21 item 3e).
		expectNotRun(run, []string{azValid, azUnknown, azTampered, azExpired, azOtherResource, azQuery,
			azCodeMalformed, azCodeUnknown, azSessionHandle, azSessionOtherUser}, "")
	})
	It("leaves TOK-5 not run when the token obtained for another resource is not shown to be bound to it", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			t.Tokens.OtherResourceUnproven = "the token is no readable JWT, and the authorization server did not refuse an unknown resource"
		})
		expectNotRun(run, []string{azOtherResource}, "mcp_authorization.other_resource_token_env")
	})
	It("leaves TOK-4 not run when the token said to be expired is a JWT whose exp is ahead", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			t.Tokens.Expired = "eyJhbGciOiJub25lIn0." + base64.RawURLEncoding.EncodeToString([]byte(`{"exp":4102444800}`)) + ".c2ln"
		})
		expectNotRun(run, []string{azExpired}, "mcp_authorization.expired_token_env")
	})
	It("leaves SCOPE-1 not run when the limited token is refused 401 for what it may do, naming the key", func() {
		run := runAuthzWith(func(h *fakeauthz.Host, t *target.Target) {
			t.Tokens.Limited = h.Mint(h.Endpoint(), fakeauthz.ScopeTools, true)
		})
		expectNotRun(run, []string{azScope, azScopeHeader, azCodeScope, azScopeAtOnce}, "mcp_authorization.protected_request")
	})
})

// expectRegistrationNotRun holds a run against a server that registers no
// client for the suite: what registers or needs a registered client is not
// run; the flows name the key that gives one.
func expectRegistrationNotRun(run outcome.Run) {
	expectNotRun(run, slices.Concat(regScenarios, registeredAnswer(), flowScenarios), "")
	for _, id := range append([]string{asRegistration}, flowScenarios...) {
		Expect(resultOf(run, id).Reason).To(ContainSubstring("mcp_authorization.client_id"), id)
	}
}
