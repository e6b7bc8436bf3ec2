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
// choices they need cannot run: REG-11 needs a client_secret issued.
var notApplicableByDefault = []string{regExpiry}

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

// expectAuthzCompliant holds a run of a compliant fake to passing every
// scenario but those its choices leave nothing to judge
// (notApplicableByDefault).
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
		Entry("every registration given the same client_id", fakeauthz.RegistrationSameClientID, []string{regDistinct, asCodeClient, asRefreshClient}, nil, "expected"),
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
		slices.Sort(notRun)
		Expect(withStatus(run, outcome.NotRun)).To(Equal(notRun), describeRun(run))
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
	It("leaves REG-8 not run when the profile's redirect URI makes the client a web one", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			t.Profile.MCPAuthorization.RedirectURI = "https://app.conform.invalid/callback"
		})
		Expect(resultOf(run, regNative).Status).To(Equal(outcome.NotRun), describeRun(run))
		Expect(resultOf(run, regNative).Reason).To(ContainSubstring("native"))
	})
})
