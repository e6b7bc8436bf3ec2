package runner_test

import (
	"slices"

	"github.com/conform-mcp/conform/harness/fakeauthz"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/target"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A throttled token endpoint is the server's right (RFC 6585 section 4):
// no scenario of the pack judges its rate limit, so a throttle is waited
// out when short, and leaves what needed the token not run when long.
var _ = Describe("the mcp-authorization pack against an authorization server that throttles token requests", func() {
	It("waits out a short Retry-After and passes everything", func() {
		var host *fakeauthz.Host
		run := runAuthzWith(func(h *fakeauthz.Host, _ *target.Target) { host = h }, fakeauthz.TokenThrottledBriefly)
		expectAuthzCompliant(run)
		Expect(host.TokensThrottled()).To(BeNumerically(">", 0), "the fake throttled no token request: the run proves nothing of waiting")
	})

	It("leaves what needs a token not run under a long Retry-After, naming the throttle, and fails nothing", func() {
		run := runAuthz(fakeauthz.TokenThrottled)
		// Every scenario that redeems a code or refreshes, and every refusal
		// judged after the run's positive control, which redeems one; what
		// needs no token the pack obtains passes.
		notRun := slices.Concat(controlled, tokenScenarios, []string{asNoVerifier, asBadVerifier, asCodeOnce, asTokenRedir, asTokenResp, asParamOnce,
			asRotated, asReplay, asRefreshClient, asLifetime, asWider, asRetarget, asCodeClient, azScopeAtOnce})
		expectNotRun(run, notRun, "throttled by the host's rate limit: HTTP 429, Retry-After 3600")
		for _, id := range notRun {
			Expect(resultOf(run, id).Reason).To(MatchRegexp(`token request at http://127\.0\.0\.1:\d+/tenant/token throttled`), id)
		}
		Expect(run.ExitCode()).To(Equal(outcome.ExitIncomplete))
	})

	It("runs the positive control again for the next refusal when a limit stopped it once", func() {
		// REDIR-1 runs the run's control first, and its code's redemption
		// is the one throttled; REDIR-3 needs the same control.
		run := runAuthzTagged("@REDIR-1,@REDIR-3", func(*fakeauthz.Host, *target.Target) {}, fakeauthz.TokenThrottledOnce)
		Expect(withStatus(run, outcome.Failed)).To(BeEmpty(), describeRun(run))
		Expect(withStatus(run, outcome.NotRun)).To(Equal([]string{asRedirect}), describeRun(run))
		Expect(resultOf(run, asRedirect).Reason).To(ContainSubstring("the positive control failed, so a refusal would mean nothing: token request at"))
		Expect(resultOf(run, asRedirect).Reason).To(ContainSubstring("HTTP 429, Retry-After 3600"))
		Expect(withStatus(run, outcome.Passed)).To(Equal([]string{asUnknownID}), describeRun(run))
	})
})

var _ = Describe("the mcp-authorization pack against an authorization server that throttles authorization requests", func() {
	It("leaves every flow not run under a long Retry-After, the requests it sends itself naming the throttle, and fails nothing", func() {
		run := runAuthz(fakeauthz.AuthorizationThrottled)
		// The approval command meets the same 429, which it reports
		// without a redirect; the pack's own requests name the throttle.
		expectNotRun(run, flowScenarios, "429")
		for _, id := range []string{asIssSent, asIssAdvert, asIssError, asGET, asStateError, asCORS} {
			Expect(resultOf(run, id).Reason).To(MatchRegexp(`authorization request at http://127\.0\.0\.1:\d+/tenant/authorize throttled by the host's rate limit: HTTP 429, Retry-After 3600`), id)
		}
	})
})
