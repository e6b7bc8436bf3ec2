package runner_test

import (
	"context"
	"io"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/credentials"
	"github.com/conform-mcp/conform/harness/fakeauthz"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/target"
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

	// ORY Hydra refuses the body's secret from a client registered for
	// client_secret_basic: it holds the client to the method it registered
	// with (RFC 7591 2), which leaves body credentials supported for
	// clients registered for them (OAuth 2.1 2.4.1).
	It("leaves CLIENTAUTH-1 not run for a client registered for client_secret_basic, naming the client to give, and fails nothing", func() {
		expectConfidentialWith(func(t *target.Target) {
			t.Profile.MCPAuthorization.ClientAuthMethod = "client_secret_basic"
		}, []fakeauthz.Break{fakeauthz.SecretPostRefused}, nil, []string{tkSecretInBody}, "")
		run := runConfidentialWith(func(t *target.Target) {
			t.Profile.MCPAuthorization.ClientAuthMethod = "client_secret_basic"
		}, fakeauthz.SecretPostRefused)
		Expect(resultOf(run, tkSecretInBody).Reason).To(And(ContainSubstring("client_secret_basic"), ContainSubstring("registered for client_secret_post")))
	})
	// A client registered for client_secret_post, at a server that holds
	// it to the body, authenticates that way in the run's own flow and in
	// the scenarios' controls.
	It("obtains the credential and passes whole a server that takes a client registered for client_secret_post by the body only", func() {
		h := fakeauthz.Start(fakeauthz.SecretBodyOnly)
		DeferCleanup(h.Close)
		t := h.Target()
		confidentialProfile(h, t)
		t.Profile.MCPAuthorization.ClientAuthMethod = "client_secret_post"
		t.Credential = ""
		credentials.Authorization(context.Background(), t, io.Discard)
		Expect(t.Credential).NotTo(BeEmpty(), t.CredentialUnobtained)
		expectConfidentialWith(func(t *target.Target) {
			t.Profile.MCPAuthorization.ClientAuthMethod = "client_secret_post"
		}, []fakeauthz.Break{fakeauthz.SecretBodyOnly}, nil, nil, "")
	})
	It("still fails CLIENTAUTH-1 for a client whose registered method the profile does not give", func() {
		expectConfidentialWith(func(*target.Target) {}, []fakeauthz.Break{fakeauthz.SecretPostRefused}, []string{tkSecretInBody}, nil, "HTTP 200 with an access_token")
	})
})
