package runner_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
	"github.com/conform-mcp/conform/harness/outcome"
)

// The wrong verdicts a replay by hand of the real servers' runs found
// (issue 21 item 4), each reproduced by a fake.
var _ = Describe("the mcp-authorization pack against the verdicts the real servers' replay found wrong", func() {
	// panva's oidc-provider answers response_type=token with
	// unsupported_response_type in the fragment, where the implicit grant
	// answers (RFC 6749 4.2.2.1): an error response, as OAuth 2.1 4.1.1 asks.
	It("passes AUTHREQ-2 when response_type=token is refused in the redirect's fragment", func() {
		run := runAuthz(fakeauthz.TokenErrorInFragment)
		Expect(resultOf(run, asResponseType).Status).To(Equal(outcome.Passed), describeRun(run))
		expectAuthzCompliant(run)
	})
})
