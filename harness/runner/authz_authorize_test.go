package runner_test

import (
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/target"
)

// The scenarios of the authorization endpoint's rules (OAuth 2.1 1.4.1,
// 2.3, 3.1, 4.1; RFC 7636 4.4; security.3; authorization.8.1) by ID.
const (
	asGET          = "mcp-authorization/oauth_3_1_authorization_endpoint.feature: The authorization endpoint takes the authorization request by GET"
	asUnknownParam = "mcp-authorization/oauth_3_1_authorization_endpoint.feature: The authorization endpoint ignores a parameter it does not recognize"
	asNoScope      = "mcp-authorization/oauth_3_1_authorization_endpoint.feature: An authorization request without scope, or with scope empty, gets a default scope or invalid_scope"
	asResponseType = "mcp-authorization/oauth_3_1_authorization_endpoint.feature: An authorization request without response_type, or with response_type token, gets an error, never a code or a token"
	asParamOnce    = "mcp-authorization/oauth_3_1_authorization_endpoint.feature: Authorization and token responses carry each parameter once"
	asHidden       = "mcp-authorization/security_4_pkce_enforcement.feature: The authorization response does not carry the code_challenge in a form a client can extract"
	asNoChallErr   = "mcp-authorization/security_4_pkce_enforcement.feature: A public client's authorization request without code_challenge gets invalid_request"
	asConfNoChall  = "mcp-authorization/security_4_pkce_enforcement.feature: A confidential client's authorization request without code_challenge is refused, or its code is"
	asRedirQuery   = "mcp-authorization/security_6_registered_redirect_uri.feature: An authorization response keeps the query of the redirect URI registered with one"
	asPlainHTTP    = "mcp-authorization/security_3_communication_security.feature: The authorization endpoint redirects no code to a plain http redirect URI on a host that is not loopback"
	asUpper        = "mcp-authorization/authorization_8_1_canonical_server_uri.feature: The MCP server's URI with an uppercase scheme and host is accepted as the resource"
	asFrame        = "mcp-authorization/oauth_3_1_authorization_endpoint.feature: A page of the authorization endpoint forbids framing by other sites"
)

// fakeRunnable selects the scenarios the fake gives something to judge
// with its default choices: FRAME-1 needs a page at the authorization
// endpoint, and the fake redirects at once unless it is given one
// (ConsentPage, FramingAllowed). The tests below run FRAME-1 with them.
const fakeRunnable = "~@FRAME-1 && " + publicClientTags

// The authorization endpoint's scenarios join the lists the other break
// tests hold runs to: each runs the code flow with a registered client;
// those judged after the run's positive control are controlled; those that
// read an approved response need a code.
func init() {
	controlledHere := []string{asUnknownParam, asNoScope, asResponseType, asNoChallErr, asUpper}
	codeHere := []string{asParamOnce, asHidden, asRedirQuery, asPlainHTTP}
	flowScenarios = append(flowScenarios, asGET)
	flowScenarios = append(flowScenarios, controlledHere...)
	flowScenarios = append(flowScenarios, codeHere...)
	controlled = append(controlled, controlledHere...)
	codeScenarios = append(codeScenarios, codeHere...)
}

var _ = Describe("the mcp-authorization pack against a fake authorization endpoint with one departure", func() {
	DescribeTable("fails exactly the scenarios of the broken requirement, with the requirement named",
		expectDeparture,
		Entry("an unknown parameter refused", fakeauthz.UnknownParamRefused, []string{asUnknownParam}, nil, "MUST ignore unrecognized request parameters"),
		Entry("a request without scope refused with invalid_request", fakeauthz.ScopeOmittedWrongError, []string{asNoScope}, nil, "OAuth 2.1 1.4.1"),
		Entry("a code whatever response_type asks", fakeauthz.ResponseTypeIgnored, []string{asResponseType}, nil, "a code"),
		Entry("an access token in the fragment for response_type token", fakeauthz.ImplicitTokenInFragment, []string{asResponseType}, nil, "7.1.3.7"),
		Entry("state sent twice", fakeauthz.StateRepeated, []string{asParamOnce}, nil, "state 2 times"),
		Entry("the redirect URI's query dropped", fakeauthz.RedirectQueryDropped, []string{asRedirQuery}, nil, "MUST be retained"),
		Entry("the code_challenge in the code", fakeauthz.ChallengeInCode, []string{asHidden}, nil, "code carries the code_challenge verbatim"),
		Entry("a missing code_challenge refused with access_denied", fakeauthz.ChallengeMissingWrongError, []string{asNoChallErr}, nil, "error=invalid_request"),
		Entry("a resource with an uppercase scheme refused", fakeauthz.ResourceCaseSensitive, []string{asUpper}, nil, "SHOULD accept uppercase scheme and host"),
		// The break registers the URI too, which REG-4 (a SHOULD) judges.
		Entry("a code redirected to a plain http redirect URI", fakeauthz.PlainRedirectHonoured, []string{asRegHTTP, asPlainHTTP}, nil, "security.3"),
	)
})

var _ = Describe("the mcp-authorization pack against a fake authorization endpoint that refuses GET", func() {
	It("fails AUTHEP-1 alone and leaves every flow not run, since no approval can open the endpoint", func() {
		notRun := slices.DeleteFunc(slices.Clone(flowScenarios), func(id string) bool { return id == asGET })
		expectDeparture(fakeauthz.AuthorizationGETRefused, []string{asGET}, notRun, "MUST support the use of the HTTP GET method")
	})
})

var _ = Describe("the mcp-authorization pack against a fake authorization endpoint that chooses unlike the reference host", func() {
	It("fails only REG-4, tolerated, when registration takes a plain http redirect URI the authorization endpoint never redirects a code to", func() {
		run := runAuthz(fakeauthz.PlainRedirectRegisteredNotUsed)
		Expect(withStatus(run, outcome.Failed)).To(Equal([]string{asRegHTTP}), describeRun(run))
		Expect(run.Tolerated(resultOf(run, asRegHTTP))).To(BeTrue())
		Expect(resultOf(run, asPlainHTTP).Status).To(Equal(outcome.Passed))
	})
	It("passes whole a server that refuses every resource it does not serve, taking its own in uppercase", func() {
		expectApplicablePass(runAuthz(fakeauthz.ResourceIndicators))
	})
})

var _ = Describe("the mcp-authorization pack's FRAME-1, which needs a page at the authorization endpoint", func() {
	It("is not run against an authorization endpoint that redirects at once, saying there is no page", func() {
		run := runAuthzTagged("@FRAME-1", func(*fakeauthz.Host, *target.Target) {})
		Expect(withStatus(run, outcome.NotRun)).To(Equal([]string{asFrame}), describeRun(run))
		Expect(resultOf(run, asFrame).Reason).To(ContainSubstring("a page (HTTP 200, text/html)"))
	})
	It("passes a consent page that forbids framing with frame-ancestors", func() {
		run := runAuthzTagged("@FRAME-1", func(*fakeauthz.Host, *target.Target) {}, fakeauthz.ConsentPage)
		Expect(withStatus(run, outcome.Passed)).To(Equal([]string{asFrame}), describeRun(run))
	})
	It("fails FRAME-1 alone, tolerated, against a consent page any site may frame; the flows are not run, as on any page the approval command fails on", func() {
		run := runAuthzTagged(publicClientTags, func(*fakeauthz.Host, *target.Target) {}, fakeauthz.FramingAllowed)
		Expect(withStatus(run, outcome.Failed)).To(Equal([]string{asFrame}), describeRun(run))
		Expect(run.Tolerated(resultOf(run, asFrame))).To(BeTrue())
		Expect(resultOf(run, asFrame).Departure.Error()).To(ContainSubstring("frame-ancestors"))
		notRun := slices.DeleteFunc(slices.Clone(flowScenarios), func(id string) bool { return id == asCORS || id == asGET })
		Expect(withStatus(run, outcome.NotRun)).To(Equal(withInapplicable(notRun, nil)), describeRun(run))
	})
})
