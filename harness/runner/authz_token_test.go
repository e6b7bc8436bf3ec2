package runner_test

import (
	"context"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/spec"
)

// The scenarios of the token endpoint, codes and refresh tokens by ID.
const (
	tkUnknownParam   = "mcp-authorization/authorization_3_token_endpoint.feature: A code redemption with an unrecognized parameter added is served"
	tkEmptyScope     = "mcp-authorization/authorization_3_token_endpoint.feature: A refresh with an empty scope is served as one without scope"
	tkSecretInBody   = "mcp-authorization/authorization_3_token_endpoint.feature: A confidential client's secret in the request body is taken"
	tkNoSecret       = "mcp-authorization/authorization_3_token_endpoint.feature: A confidential client's redemption without its secret is refused"
	tkWrongSecret    = "mcp-authorization/authorization_3_token_endpoint.feature: A confidential client's redemption with a wrong secret is refused"
	tkBasicChallenge = "mcp-authorization/authorization_3_token_endpoint.feature: A failed HTTP Basic client authentication answers 401 with a Basic challenge"
	tkAccessToken    = "mcp-authorization/security_2_token_issuance.feature: A successful token response carries access_token"
	tkScopeNamed     = "mcp-authorization/security_2_token_issuance.feature: A token response that leaves scope out issues the scope requested"
	tkRefreshChanged = "mcp-authorization/security_2_token_issuance.feature: A refresh token with one character changed is refused with invalid_grant"
	tkRotationReplay = "mcp-authorization/security_2_token_issuance.feature: A refresh token replayed after rotation revokes the newest one"
	tkRefreshScope   = "mcp-authorization/security_2_token_issuance.feature: A new refresh token keeps the scope of the one it replaces"
	tkCodeReplay     = "mcp-authorization/security_4_code_replay.feature: After a code's second redemption, the access token of its first is refused"
	tkInvalidReplay  = "mcp-authorization/security_4_code_replay.feature: A replayed code with a wrong code_verifier does not revoke the tokens of its first redemption"
	tkChallengeText  = "mcp-authorization/authorization_11_error_syntax.feature: The challenge to a token the server never issued uses only the characters OAuth 2.1 allows in its error attributes"
	tkTokenErrText   = "mcp-authorization/authorization_11_error_syntax.feature: A token error response uses only the characters OAuth 2.1 allows"
	tkAuthzErrText   = "mcp-authorization/authorization_11_error_syntax.feature: An authorization error response uses only the characters OAuth 2.1 allows"
	tkAudience       = "mcp-authorization/security_1_token_audience.feature: The access token the authorization server issues names its audience"
)

// tokenScenarios are this group's scenarios that a public client runs: each
// needs a code the approval command got, and the flow with a registered
// client.
var tokenScenarios = []string{tkUnknownParam, tkEmptyScope, tkAccessToken, tkScopeNamed, tkRefreshChanged, tkRotationReplay, tkRefreshScope,
	tkCodeReplay, tkInvalidReplay, tkTokenErrText, tkAuthzErrText}

// tokenRefreshScenarios are those of them that need a refresh token.
var tokenRefreshScenarios = []string{tkEmptyScope, tkRefreshChanged, tkRotationReplay, tkRefreshScope}

// confidentialScenarios need a confidential client, which the fake's own
// target, a public client it registers, does not have.
var confidentialScenarios = []string{tkSecretInBody, tkNoSecret, tkWrongSecret, tkBasicChallenge}

// publicClientTags leaves out of the whole-pack runs against the fake's own
// target what it cannot give a verdict on: confidentialScenarios, since it
// has no confidential client, and AUD-1, since its tokens are opaque and it
// has no introspection. The tests below run them with the profile or the
// choice that lets them run.
const publicClientTags = "~@CLIENTAUTH-1 && ~@CLIENTAUTH-2 && ~@CLIENTAUTH-3 && ~@AUD-1"

// confidentialProfile names the fake's confidential client and its secret,
// as a user whose authorization server issued one would.
func confidentialProfile(_ *fakeauthz.Host, t *target.Target) {
	GinkgoT().Setenv("CONFORM_TEST_CLIENT_SECRET", fakeauthz.ConfidentialSecret)
	t.Profile.MCPAuthorization.ClientID = fakeauthz.ConfidentialID
	t.Profile.MCPAuthorization.ClientSecretEnv = "CONFORM_TEST_CLIENT_SECRET"
}

// runConfidential runs the whole pack, the scenarios of client
// authentication included, against a fake that serves confidential clients
// only, the run's client being the fake's confidential one.
func runConfidential(breaks ...fakeauthz.Break) outcome.Run {
	return runConfidentialWith(func(*target.Target) {}, breaks...)
}

// runConfidentialWith is runConfidential with the profile changed after it
// names the confidential client.
func runConfidentialWith(change func(*target.Target), breaks ...fakeauthz.Break) outcome.Run {
	h := fakeauthz.Start(append([]fakeauthz.Break{fakeauthz.ConfidentialOnly}, breaks...)...)
	DeferCleanup(h.Close)
	t := h.Target()
	confidentialProfile(h, t)
	change(t)
	run, err := runner.Run(context.Background(), runner.Options{Target: t, Pack: spec.Authorization})
	Expect(err).NotTo(HaveOccurred())
	return run
}

// confidentialOnlyNotRun are the scenarios a server that refuses
// registration leaves not run: registration's, and those that need a second
// client; and AUD-1, since its tokens are opaque and it has no
// introspection.
var confidentialOnlyNotRun = withInapplicable([]string{asRegistration, asRegHTTP, asRegFragment, asCodeClient, asRefreshClient, tkAudience,
	// Registration's own rules, and what needs a client registered with a
	// redirect URI of its own; the consent page the fake has none of.
	regNative, regExpiry, regDistinct, regUnknown, regEcho, regRelative, regPrivate, asRedirQuery, asFrame,
	// The rules that bind public clients alone (OAuth 2.1 4.1.3, 4.3.1).
	asNoChallenge, asNoChallErr, asRotated, asReplay, tkRotationReplay},
	// PKCE-6 binds the server for confidential clients: it runs.
	[]string{asConfNoChall})

// expectConfidential holds a run against ConfidentialOnly with breaks to
// failing exactly failed, each naming says, and leaving not run exactly
// what a server without registration leaves and notRun.
func expectConfidential(breaks []fakeauthz.Break, failed, notRun []string, says string) {
	expectConfidentialWith(func(*target.Target) {}, breaks, failed, notRun, says)
}

// expectConfidentialWith is expectConfidential with the profile changed
// after it names the confidential client.
func expectConfidentialWith(change func(*target.Target), breaks []fakeauthz.Break, failed, notRun []string, says string) {
	GinkgoHelper()
	run := runConfidentialWith(change, breaks...)
	failed, notRun = slices.Clone(failed), slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(confidentialOnlyNotRun), notRun...))))
	slices.Sort(failed)
	slices.Sort(notRun)
	Expect(withStatus(run, outcome.Failed)).To(Equal(failed), describeRun(run))
	Expect(withStatus(run, outcome.NotRun)).To(Equal(notRun), describeRun(run))
	Expect(withStatus(run, outcome.HarnessError)).To(BeEmpty(), describeRun(run))
	for _, r := range run.Results {
		if r.Status == outcome.Failed {
			Expect(r.Departure.Error()).To(ContainSubstring(says), r.ID)
		}
	}
}

var _ = Describe("the mcp-authorization pack's token endpoint rules against the fake", func() {
	DescribeTable("fails exactly the scenarios of the broken requirement, with the requirement named",
		expectDeparture,
		Entry("an unknown token request parameter refused", fakeauthz.TokenUnknownParamRefused, []string{tkUnknownParam}, nil, "HTTP 200 with an access_token"),
		Entry("an empty scope refused", fakeauthz.EmptyScopeRefused, []string{tkEmptyScope}, nil, "invalid_scope"),
		Entry("a refresh token the server never issued served", fakeauthz.RefreshAnyToken, []string{tkRefreshChanged}, nil, "invalid_grant"),
		Entry("a new refresh token narrowed to the scope a refresh asked for", fakeauthz.RefreshNarrowsRefreshToken, []string{tkRefreshScope}, nil, "OAuth 2.1 4.3.3"),
		Entry("a replay with a wrong code_verifier revoking the first tokens", fakeauthz.InvalidReplayRevokes, []string{tkInvalidReplay}, nil, "2xx"),
		Entry("a double quote and a non-ASCII letter in error descriptions", fakeauthz.ErrorTextOutsideCharset, []string{tkChallengeText, tkTokenErrText}, nil, "%x20-21 / %x23-5B / %x5D-7E"),
	)

	It("fails TOKRESP-2 against a token response without access_token, leaving what builds on a token not run", func() {
		run := runAuthz(fakeauthz.AccessTokenMissing)
		Expect(withStatus(run, outcome.Failed)).To(Equal([]string{tkAccessToken}), describeRun(run))
		Expect(resultOf(run, tkAccessToken).Departure.Error()).To(ContainSubstring("access_token, REQUIRED"))
		Expect(withStatus(run, outcome.HarnessError)).To(BeEmpty(), describeRun(run))
		for _, r := range run.Results {
			if r.Status == outcome.NotRun && !r.Inapplicable() {
				Expect(r.Reason).To(ContainSubstring("could not be set up"), r.ID)
			}
		}
	})

	It("fails TOKRESP-3 against a token narrowed silently, the scope left out of the response", func() {
		run := runAuthz(fakeauthz.ScopeNarrowedSilently)
		Expect(withStatus(run, outcome.Failed)).To(Equal([]string{tkScopeNamed}), describeRun(run))
		Expect(resultOf(run, tkScopeNamed).Departure.Error()).To(ContainSubstring("no scope in the response"))
	})

	It("fails CODE-3, a SHOULD, tolerated, against a server that keeps a replayed code's tokens", func() {
		run := runAuthz(fakeauthz.CodeReplayKeepsTokens)
		Expect(withStatus(run, outcome.Failed)).To(Equal([]string{tkCodeReplay}), describeRun(run))
		Expect(withStatus(run, outcome.NotRun)).To(Equal(withInapplicable(nil, nil)), describeRun(run))
		Expect(run.Tolerated(resultOf(run, tkCodeReplay))).To(BeTrue())
		Expect(run.ExitCode()).To(Equal(outcome.ExitPassed))
	})

	It("fails REFRESH-6, a SHOULD, tolerated, against a server that keeps the grant when a rotated refresh token is replayed", func() {
		run := runAuthz(fakeauthz.RotationReplayKeepsGrant)
		Expect(withStatus(run, outcome.Failed)).To(Equal([]string{tkRotationReplay}), describeRun(run))
		Expect(withStatus(run, outcome.NotRun)).To(Equal(withInapplicable(nil, nil)), describeRun(run))
		Expect(run.Tolerated(resultOf(run, tkRotationReplay))).To(BeTrue())
		Expect(run.ExitCode()).To(Equal(outcome.ExitPassed))
	})

	It("leaves the client authentication scenarios not run when the profile names no confidential client of a server that serves them, naming the keys", func() {
		h := fakeauthz.Start(fakeauthz.ConfidentialRegistration)
		DeferCleanup(h.Close)
		run, err := runner.Run(context.Background(), runner.Options{Target: h.Target(), Pack: spec.Authorization, Tags: "@CLIENTAUTH-1,@CLIENTAUTH-2,@CLIENTAUTH-3"})
		Expect(err).NotTo(HaveOccurred())
		Expect(withStatus(run, outcome.NotRun)).To(Equal(slices.Sorted(slices.Values(confidentialScenarios))), describeRun(run))
		for _, id := range confidentialScenarios {
			Expect(resultOf(run, id).Inapplicable()).To(BeFalse(), id)
			Expect(resultOf(run, id).Reason).To(ContainSubstring("mcp_authorization.client_secret_env"), id)
		}
	})

	It("finds client authentication not applicable to a server whose metadata advertises none alone", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		run, err := runner.Run(context.Background(), runner.Options{Target: h.Target(), Pack: spec.Authorization, Tags: "@CLIENTAUTH-1,@CLIENTAUTH-2,@CLIENTAUTH-3"})
		Expect(err).NotTo(HaveOccurred())
		Expect(withStatus(run, outcome.NotRun)).To(Equal(slices.Sorted(slices.Values(confidentialScenarios))), describeRun(run))
		for _, id := range confidentialScenarios {
			Expect(resultOf(run, id).Inapplicable()).To(BeTrue(), id)
			Expect(resultOf(run, id).Reason).To(ContainSubstring("public clients only"), id)
		}
	})
})

// runAudience runs AUD-1 alone against a fake with breaks, its target
// changed as change says.
func runAudience(change func(*fakeauthz.Host, *target.Target), breaks ...fakeauthz.Break) outcome.Result {
	h := fakeauthz.Start(breaks...)
	DeferCleanup(h.Close)
	t := h.Target()
	change(h, t)
	run, err := runner.Run(context.Background(), runner.Options{Target: t, Pack: spec.Authorization, Tags: "@AUD-1"})
	Expect(err).NotTo(HaveOccurred())
	Expect(run.Results).To(HaveLen(1))
	return run.Results[0]
}

var _ = Describe("the mcp-authorization pack's audience rule against the fake", func() {
	keep := func(*fakeauthz.Host, *target.Target) {}
	It("leaves AUD-1 not run against opaque tokens without introspection, saying what would show the audience", func() {
		r := runAudience(keep)
		Expect(r.Status).To(Equal(outcome.NotRun))
		Expect(r.Reason).To(ContainSubstring("introspection_endpoint"))
	})
	It("passes JWT access tokens that name their aud", func() {
		r := runAudience(keep, fakeauthz.JWTAccessTokens)
		Expect(r.Status).To(Equal(outcome.Passed), r.Reason)
	})
	It("fails JWT access tokens without aud", func() {
		r := runAudience(keep, fakeauthz.AudienceOmitted)
		Expect(r.Status).To(Equal(outcome.Failed))
		Expect(r.Departure.Error()).To(ContainSubstring("OAuth 2.1 7.1.3.6"))
	})
	It("passes opaque tokens whose introspection names their aud, asked with the profile's confidential client", func() {
		r := runAudience(confidentialProfile, fakeauthz.ConfidentialOnly, fakeauthz.Introspection)
		Expect(r.Status).To(Equal(outcome.Passed), r.Reason)
	})
})

var _ = Describe("the mcp-authorization pack's client authentication rules against a server of confidential clients", func() {
	It("passes a server that takes the secret by HTTP Basic or in the body, and refuses a wrong one 401 with a Basic challenge", func() {
		expectConfidential(nil, nil, nil, "")
	})
	DescribeTable("fails exactly the scenarios of the broken requirement, with the requirement named",
		func(b fakeauthz.Break, failed, notRun []string, says string) {
			expectConfidential([]fakeauthz.Break{b}, failed, notRun, says)
		},
		Entry("the secret in the body refused", fakeauthz.SecretPostRefused, []string{tkSecretInBody}, nil, "HTTP 200 with an access_token"),
		Entry("the secret not checked", fakeauthz.SecretNotChecked, []string{tkNoSecret, tkWrongSecret, tkBasicChallenge}, nil, "OAuth 2.1 3.2"),
		Entry("a failed Basic authentication answered 400 without a challenge", fakeauthz.BasicFailureNoChallenge, []string{tkBasicChallenge}, nil, "Basic challenge"),
	)
})
