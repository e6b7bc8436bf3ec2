package runner_test

import (
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/target"
)

// The scenarios of registration's endpoint and response (REG-6 to REG-13).
const (
	regRelative = "mcp-authorization/security_6_registered_redirect_uris.feature: Registration refuses a relative redirect URI"
	regPrivate  = "mcp-authorization/security_6_registered_redirect_uris.feature: Registration refuses a private-use scheme without a period"
	regOpen     = "mcp-authorization/authorization_5_registration_response.feature: The registration endpoint takes a registration without an initial access token"
	regEcho     = "mcp-authorization/authorization_5_registration_response.feature: The registration response returns the redirect URIs registered"
	regExpiry   = "mcp-authorization/authorization_5_registration_response.feature: A registration that issues a client secret says when it expires"
	regNative   = "mcp-authorization/authorization_5_registration_response.feature: A native client that asks for no client authentication is registered public"
	regDistinct = "mcp-authorization/authorization_5_registration_response.feature: A registration with other metadata gets another client_id"
	regUnknown  = "mcp-authorization/authorization_5_registration_response.feature: Registration ignores metadata it does not understand"
)

// The scenarios of revocation (REVOKE-1 to REVOKE-3) and introspection
// (INTROSPECT-1 to INTROSPECT-4).
const (
	revokeRefresh      = "mcp-authorization/authorization_3_token_revocation.feature: A revoked refresh token is refused at the next refresh"
	revokeHint         = "mcp-authorization/authorization_3_token_revocation.feature: A refresh token revoked under the token_type_hint access_token is refused at the next refresh"
	revokeAccess       = "mcp-authorization/authorization_3_token_revocation.feature: Revoking a refresh token stops the access token of its grant"
	introspectOpen     = "mcp-authorization/authorization_3_token_introspection.feature: The introspection endpoint tells a caller without credentials nothing of an active token"
	introspectActive   = "mcp-authorization/authorization_3_token_introspection.feature: An introspection answer says whether the token is active"
	introspectUnknown  = "mcp-authorization/authorization_3_token_introspection.feature: A token the server never issued is introspected inactive"
	introspectHint     = "mcp-authorization/authorization_3_token_introspection.feature: Introspection finds a token under the token_type_hint refresh_token"
	introspectInactive = "mcp-authorization/authorization_3_token_introspection.feature: The introspection answer for an inactive token says nothing else"
)

// shoulds are the scenarios of SHOULDs among them, whose failures are
// tolerated.
var shoulds = []string{revokeAccess, introspectInactive, regNative, regDistinct, asConfNoChall}

// revokeScenarios and introspectScenarios are not applicable to a server
// that does not advertise the endpoint.
var (
	revokeScenarios     = []string{revokeRefresh, revokeHint, revokeAccess}
	introspectScenarios = []string{introspectOpen, introspectActive, introspectUnknown, introspectHint, introspectInactive}
)

// registerScenarios are the scenarios of this group that register a client
// themselves.
var registerScenarios = []string{regRelative, regPrivate, regOpen, regEcho, regExpiry, regNative, regDistinct, regUnknown}

// registeredAnswer are those of them that judge an accepted registration, or
// a refusal after one was accepted: a refused or protected registration
// leaves them not run. REG-13 judges any answer but a 429.
func registeredAnswer() []string {
	return slices.DeleteFunc(slices.Clone(registerScenarios), func(id string) bool { return id == regOpen })
}

// notApplicableByDefault are the scenarios a compliant fake without the
// choices they need cannot run: REG-11 needs a client_secret issued, PKCE-6
// a confidential client, the others a revocation_endpoint or an
// introspection_endpoint advertised.
var notApplicableByDefault = slices.Concat([]string{regExpiry, asConfNoChall}, revokeScenarios, introspectScenarios)

// withInapplicable is notRun, sorted, with the scenarios of
// notApplicableByDefault a run that fails failed leaves not run as a
// compliant fake does.
func withInapplicable(notRun, failed []string) []string {
	out := slices.Clone(notRun)
	for _, id := range notApplicableByDefault {
		if !slices.Contains(out, id) && !slices.Contains(failed, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// expectOffered holds a run of a fake that offers what the scenarios
// offered judge (notApplicableByDefault otherwise) to failing exactly failed,
// each naming says and tolerated when a SHOULD's, and leaving exactly notRun and the
// rest of notApplicableByDefault not run.
func expectOffered(run outcome.Run, offered, failed, notRun []string, says string) {
	failed = slices.Sorted(slices.Values(failed))
	Expect(withStatus(run, outcome.Failed)).To(Equal(failed), describeRun(run))
	Expect(withStatus(run, outcome.NotRun)).To(Equal(withInapplicable(notRun, offered)), describeRun(run))
	Expect(withStatus(run, outcome.HarnessError)).To(BeEmpty(), describeRun(run))
	for _, id := range failed {
		Expect(resultOf(run, id).Departure.Error()).To(ContainSubstring(says), id)
		Expect(run.Tolerated(resultOf(run, id))).To(Equal(slices.Contains(shoulds, id)), id)
	}
}

// expectAuthzCompliant holds a run of a compliant fake to passing every
// scenario but those its choices leave nothing to judge
// (notApplicableByDefault).
// expectApplicablePass holds a run to passing every scenario that applies:
// nothing failed, no harness error, and every scenario not run was not
// applicable (outcome.NotApplicable).
func expectApplicablePass(run outcome.Run) {
	GinkgoHelper()
	Expect(withStatus(run, outcome.Failed)).To(BeEmpty(), describeRun(run))
	Expect(withStatus(run, outcome.HarnessError)).To(BeEmpty(), describeRun(run))
	for _, r := range run.Results {
		if r.Status == outcome.NotRun {
			Expect(r.Inapplicable()).To(BeTrue(), "%s: %s", r.ID, r.Reason)
		}
	}
	Expect(withStatus(run, outcome.Passed)).NotTo(BeEmpty())
}

func expectAuthzCompliant(run outcome.Run) {
	expectNotRun(run, nil, "")
	Expect(run.Results).NotTo(BeEmpty())
}

var _ = Describe("the mcp-authorization pack against a fake registration endpoint with one departure", func() {
	DescribeTable("fails exactly the scenarios of the broken requirement, with the requirement named",
		expectDeparture,
		Entry("a relative redirect URI registered", fakeauthz.RegistrationRelativeRedirect, []string{regRelative}, nil, "a refusal"),
		Entry("a private-use scheme without a period registered", fakeauthz.RegistrationPrivateSchemeNoPeriod, []string{regPrivate}, nil, "a refusal"),
		// CODE-2 and REFRESH-3 take the second registration for a second
		// client; issue 21 item l leaves them not run when it is the first.
		Entry("every registration given the same client_id", fakeauthz.RegistrationSameClientID, []string{regDistinct}, []string{asCodeClient, asRefreshClient}, "expected"),
		Entry("a registration answered with its client_id alone", fakeauthz.RegistrationEchoesNothing, []string{regEcho}, nil, "redirect_uris"),
		Entry("a metadata field it does not know refused", fakeauthz.RegistrationUnknownFieldRefused, []string{regUnknown}, nil, "RFC 7591 2"),
	)
	It("names the client_id both registrations returned when REG-9 fails", func() {
		d := resultOf(runAuthz(fakeauthz.RegistrationSameClientID), regDistinct).Departure
		Expect(d).To(HaveOccurred())
		Expect(d.Error()).To(ContainSubstring("RFC 7591 3.2.1"))
		Expect(d.Error()).To(ContainSubstring("conform-shared"))
	})
})

var _ = Describe("the mcp-authorization pack against a registration endpoint's allowed choices", func() {
	It("fails REG-13 alone, a SHOULD and so tolerated, against an endpoint protected with an initial access token, leaving what needs a client not run", func() {
		run := runAuthz(fakeauthz.RegistrationProtected)
		Expect(withStatus(run, outcome.Failed)).To(Equal([]string{regOpen}), describeRun(run))
		Expect(run.Tolerated(resultOf(run, regOpen))).To(BeTrue())
		Expect(resultOf(run, regOpen).Departure.Error()).To(ContainSubstring("RFC 7591 3"))
		notRun := slices.Concat(regScenarios, registeredAnswer(), flowScenarios)
		Expect(withStatus(run, outcome.NotRun)).To(Equal(withInapplicable(notRun, nil)), describeRun(run))
		for _, id := range append([]string{asRegistration}, flowScenarios...) {
			Expect(resultOf(run, id).Reason).To(ContainSubstring("mcp_authorization.client_id"), id)
		}
	})
	// Issue 21 item n: a server that makes every client confidential. The
	// run's own client then needs its secret, which item n gives it; what
	// this group judges holds either way.
	It("judges REG-11 against a registration that issues a secret, and fails REG-8, a SHOULD, when a native client that asked for none gets one", func() {
		run := runAuthz(fakeauthz.ConfidentialRegistration)
		Expect(withStatus(run, outcome.Failed)).To(Equal([]string{regNative}), describeRun(run))
		Expect(run.Tolerated(resultOf(run, regNative))).To(BeTrue())
		Expect(resultOf(run, regNative).Departure.Error()).To(ContainSubstring("OAuth 2.1 8.1.1"))
		Expect(resultOf(run, regExpiry).Status).To(Equal(outcome.Passed), describeRun(run))
		Expect(withStatus(run, outcome.HarnessError)).To(BeEmpty(), describeRun(run))
	})
	It("fails REG-11 for a secret issued without client_secret_expires_at", func() {
		run := runAuthz(fakeauthz.SecretWithoutExpiry)
		Expect(withStatus(run, outcome.Failed)).To(ConsistOf(regExpiry, regNative), describeRun(run))
		Expect(resultOf(run, regExpiry).Departure.Error()).To(ContainSubstring("client_secret_expires_at"))
		Expect(run.Tolerated(resultOf(run, regExpiry))).To(BeFalse())
	})
	It("passes a registration that issues a native client a secret yet keeps none, requiring nothing of it (REG-8, OAuth 2.1 8.1.1)", func() {
		run := runAuthz(fakeauthz.SecretWithNone)
		expectApplicablePass(run)
		Expect(resultOf(run, regNative).Status).To(Equal(outcome.Passed))
		Expect(resultOf(run, regExpiry).Status).To(Equal(outcome.Passed))
	})
	It("leaves REG-8 not run when the profile's redirect URI makes the client a web one", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			t.Profile.MCPAuthorization.RedirectURI = "https://app.conform.invalid/callback"
		})
		Expect(resultOf(run, regNative).Status).To(Equal(outcome.NotRun), describeRun(run))
		Expect(resultOf(run, regNative).Reason).To(ContainSubstring("native"))
	})
})

var _ = Describe("the mcp-authorization pack against a fake that offers revocation (RFC 7009)", func() {
	It("passes it, and says revocation is not applicable to a server that does not advertise it", func() {
		run := runAuthz(fakeauthz.Revocation)
		for _, id := range revokeScenarios {
			Expect(resultOf(run, id).Status).To(Equal(outcome.Passed), describeRun(run))
		}
		Expect(withStatus(run, outcome.Failed)).To(BeEmpty(), describeRun(run))
		without := runAuthz()
		for _, id := range revokeScenarios {
			Expect(resultOf(without, id).Reason).To(ContainSubstring("not applicable: the authorization server metadata names no revocation_endpoint"), id)
		}
	})
	DescribeTable("fails exactly the scenarios of the broken requirement",
		func(b fakeauthz.Break, failed []string, says string) {
			expectOffered(runAuthz(b), revokeScenarios, failed, nil, says)
		},
		// A server that revokes nothing breaks all three: none can be shown
		// apart from the revocation itself.
		Entry("revocations answered 200 and ignored", fakeauthz.RevocationIgnored, []string{revokeRefresh, revokeHint, revokeAccess}, "expected"),
		Entry("a refresh token looked up only where its hint says", fakeauthz.RevocationHintStrict, []string{revokeHint}, "invalid_grant"),
		Entry("the grant's access tokens kept", fakeauthz.RevocationKeepsAccess, []string{revokeAccess}, "expected 401"),
	)
})

// withIntrospector gives the profile the client the fake's introspection
// endpoint lets in, with its secret from the environment.
func withIntrospector(_ *fakeauthz.Host, t *target.Target) {
	t.Profile.MCPAuthorization.ClientID = fakeauthz.ConfidentialID
	t.Profile.MCPAuthorization.ClientSecretEnv = "CONFORM_TEST_INTROSPECTION_SECRET"
}

var _ = Describe("the mcp-authorization pack against a fake that offers introspection (RFC 7662)", func() {
	BeforeEach(func() { GinkgoT().Setenv("CONFORM_TEST_INTROSPECTION_SECRET", fakeauthz.ConfidentialSecret) })

	It("passes it as the profile's client with its secret", func() {
		run := runAuthzWith(withIntrospector, fakeauthz.Introspection)
		for _, id := range introspectScenarios {
			Expect(resultOf(run, id).Status).To(Equal(outcome.Passed), describeRun(run))
		}
		Expect(withStatus(run, outcome.Failed)).To(BeEmpty(), describeRun(run))
	})
	It("judges without credentials only the refusal of a caller without them, and says which profile keys the rest need", func() {
		run := runAuthz(fakeauthz.Introspection)
		Expect(resultOf(run, introspectOpen).Status).To(Equal(outcome.Passed), describeRun(run))
		for _, id := range []string{introspectActive, introspectUnknown, introspectHint, introspectInactive} {
			Expect(resultOf(run, id).Status).To(Equal(outcome.NotRun), id)
			Expect(resultOf(run, id).Reason).To(ContainSubstring("introspection_client_secret_env"), id)
		}
		Expect(withStatus(run, outcome.Failed)).To(BeEmpty(), describeRun(run))
	})
	It("leaves introspection not run, naming the key, when the endpoint refuses the profile's client", func() {
		GinkgoT().Setenv("CONFORM_TEST_INTROSPECTION_SECRET", "not-the-secret")
		run := runAuthzWith(withIntrospector, fakeauthz.Introspection)
		Expect(withStatus(run, outcome.Failed)).To(BeEmpty(), describeRun(run))
		for _, id := range []string{introspectActive, introspectUnknown, introspectHint, introspectInactive} {
			Expect(resultOf(run, id).Status).To(Equal(outcome.NotRun), id)
			Expect(resultOf(run, id).Reason).To(ContainSubstring("refused the profile's client"), id)
		}
	})
	DescribeTable("fails exactly the scenarios of the broken requirement",
		func(b fakeauthz.Break, failed, notRun []string, says string) {
			// The introspecting client is confidential: the rules that bind
			// public clients alone are not run, and PKCE-6, which binds
			// confidential ones, is.
			expectOffered(runAuthzWith(withIntrospector, b), append(slices.Clone(introspectScenarios), asConfNoChall), failed, append(slices.Clone(publicOnly), notRun...), says)
		},
		Entry("a caller without credentials told the token is active", fakeauthz.IntrospectionOpen, []string{introspectOpen}, nil, "RFC 7662 2.1"),
		Entry("a token looked up only where its hint says", fakeauthz.IntrospectionHintStrict, []string{introspectHint}, nil, "active true"),
		// Without active no answer shows the caller let in, which the other
		// rules build on.
		Entry("no active member", fakeauthz.IntrospectionActiveMissing, []string{introspectActive}, []string{introspectUnknown, introspectHint, introspectInactive}, "active REQUIRED"),
		Entry("an inactive token's answer saying why", fakeauthz.IntrospectionInactiveDetails, []string{introspectInactive}, nil, "error_description"),
	)
})
