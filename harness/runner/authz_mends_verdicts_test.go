package runner_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/target"
)

// The wrong verdicts real servers showed (issue 21 item 3), each reproduced
// by a fake: the pack must fail exactly the requirement departed from, and
// leave not run, naming the cause, what the server's choice or the run's own
// doing leaves without evidence.
var _ = Describe("the mcp-authorization pack against the wrong verdicts real servers showed", func() {
	// Item a: an error redirect to the other port is no acceptance of it.
	It("fails LOOPBACK-1 when the other port gets an error redirect, quoting the error", func() {
		expectDeparture(fakeauthz.LoopbackErrorRedirect, []string{asLoopback}, nil, "error=invalid_request")
	})
	// Item e: 403 insufficient_scope on every request, the protected one
	// included, is the very answer SCOPE-1 and SCOPE-3 ask for.
	It("passes whole a server that refuses the limited token 403 insufficient_scope on every request", func() {
		run := runAuthz(fakeauthz.LimitedTokenRefusedEverywhere)
		expectApplicablePass(run)
	})
	// Item f: the server's own word that the scope is what lacks, answered
	// 401, departs from authorization.11's 403.
	It("fails SCOPE-1 when insufficient scope is answered 401 with error=\"insufficient_scope\"", func() {
		// CHAL-5's scope row reads the same answer: insufficient_scope with a 401.
		expectDeparture(fakeauthz.ScopeErrorUnauthorized, []string{azScope, azCodeScope}, []string{azScopeHeader, azScopeAtOnce}, "")
		Expect(resultOf(runAuthz(fakeauthz.ScopeErrorUnauthorized), azScope).Departure.Error()).To(ContainSubstring("403 for insufficient scope"))
	})
	// Item b: the run must not revoke the credential it relies on, and a
	// credential that stops working mid-run is named as the cause.
	It("passes whole a server that revokes a client's tokens when it is authorized again, the pre-flight's client serving as the second", func() {
		run := runAuthzWith(func(h *fakeauthz.Host, t *target.Target) {
			t.Credential = h.MintFor(fakeauthz.ConfidentialID, "", h.Endpoint(), fakeauthz.ScopeTools+" "+fakeauthz.ScopeWrite)
			t.Tokens.Client = target.RegisteredClient{Issuer: h.Issuer(), ID: fakeauthz.ConfidentialID}
		}, fakeauthz.ReauthorizationRevokes)
		expectApplicablePass(run)
	})
	It("names a credential revoked mid-run as the cause of what it leaves not run, failing nothing", func() {
		run := runAuthzWith(func(h *fakeauthz.Host, t *target.Target) {
			// The scenarios authorize the very client the credential is of.
			t.Profile.MCPAuthorization.ClientID = fakeauthz.ConfidentialID
			t.Credential = h.MintFor(fakeauthz.ConfidentialID, "", h.Endpoint(), fakeauthz.ScopeTools+" "+fakeauthz.ScopeWrite)
		}, fakeauthz.ReauthorizationRevokes)
		expectNotRun(run, []string{azValid, azUnknown, azTampered, azExpired, azOtherResource, azQuery, azOrigin,
			azCodeMalformed, azCodeUnknown, azSessionHandle, azSessionOtherUser}, "")
		for _, id := range []string{azValid, azUnknown, azTampered, azExpired, azOtherResource, azQuery, azOrigin} {
			Expect(resultOf(run, id).Reason).To(ContainSubstring("it stopped working mid-run"), id)
		}
		for _, id := range []string{azValid, azUnknown, azOrigin} {
			Expect(resultOf(run, id).Reason).NotTo(ContainSubstring("set mcp_authorization.protected_request"), id)
		}
	})
	// Item c: TOK-4 is judged only with evidence that the token expired.
	It("leaves TOK-4 not run, failing nothing, when an opaque token said to be expired is still served and nothing shows it expired", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) { t.Tokens.ExpiredAt = time.Time{} }, fakeauthz.ExpiredTokenLive)
		expectNotRun(run, []string{azExpired}, "mcp_authorization.expired_token_expired_at")
		Expect(resultOf(run, azExpired).Reason).To(ContainSubstring("advertises no introspection_endpoint"))
	})
	It("leaves TOK-4 not run when introspection says the token said to be expired is active", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			introspectAsConfidential(t)
			t.Tokens.ExpiredAt = time.Now()
		}, fakeauthz.ExpiredTokenLive, fakeauthz.Introspection)
		expectOffered(run, introspectScenarios, nil, []string{azExpired}, "")
		Expect(resultOf(run, azExpired).Reason).To(ContainSubstring("is active (RFC 7662 2.2)"))
	})
	It("judges TOK-4 on introspection's word that the token is not active", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			introspectAsConfidential(t)
			t.Tokens.ExpiredAt = time.Time{}
		}, fakeauthz.Introspection)
		expectApplicablePass(run)
	})
	It("leaves TOK-4 not run when the profile says the token expires later", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) { t.Tokens.ExpiredAt = time.Now().Add(time.Hour) })
		expectNotRun(run, []string{azExpired}, "still ahead")
	})
	// Item d: introspection's aud shows the token is for another resource.
	It("judges TOK-5 on introspection's aud when the pre-flight could not show the token bound, and fails a server that ignores it", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			introspectAsConfidential(t)
			t.Tokens.OtherResourceUnproven = "the token is no readable JWT, and the authorization server did not refuse an unknown resource"
		}, fakeauthz.AudienceIgnored, fakeauthz.Introspection)
		Expect(withStatus(run, outcome.Failed)).To(Equal([]string{azOtherResource}), describeRun(run))
		Expect(withStatus(run, outcome.NotRun)).To(Equal(withInapplicable(nil, introspectScenarios)), describeRun(run))
	})
	It("leaves TOK-5 not run when introspection says the token for another resource is for this server", func() {
		run := runAuthzWith(func(h *fakeauthz.Host, t *target.Target) {
			introspectAsConfidential(t)
			t.Tokens.OtherResource = h.Mint(h.Endpoint(), fakeauthz.ScopeTools, false)
		}, fakeauthz.Introspection)
		expectOffered(run, introspectScenarios, nil, []string{azOtherResource}, "")
		Expect(resultOf(run, azOtherResource).Reason).To(ContainSubstring("which names this server"))
	})
	// Item g: a refresh asks for a scope the server advertises and the
	// grant lacks, which a server that widens grants; one it never heard of
	// every server drops.
	It("fails REFRESH-4 when a refresh is granted an advertised scope the grant lacks", func() {
		// A refresh token widened with its grant keeps no longer the scope
		// of the one it replaces (REFRESH-8): the same departure.
		expectDeparture(fakeauthz.RefreshWidensAdvertised, []string{asWider, tkRefreshScope}, nil, "")
	})
	It("leaves REFRESH-4 not run, saying so, when nothing advertises a scope the grant lacks", func() {
		run := runAuthz(fakeauthz.ASMetadataWithoutScopes)
		Expect(resultOf(run, asWider).Status).To(Equal(outcome.NotRun), describeRun(run))
		Expect(resultOf(run, asWider).Reason).To(ContainSubstring("advertise no scope the grant"))
	})
	// Item i: a connection closed on a malformed token, by a server that
	// answers the same request without one, is its answer to the token.
	It("fails TOK-2 when the server hangs up on a malformed token, never reporting a fault of the harness", func() {
		expectDeparture(fakeauthz.MalformedTokenHangsUp, []string{azEmptyToken, azBadChars, azCodeMalformed, azChalOnceMalformed}, nil, "while the same request without a token is answered")
	})
})

// introspectAsConfidential gives the profile the client the fake's
// introspection endpoint takes, with its secret from the environment.
func introspectAsConfidential(t *target.Target) {
	GinkgoT().Setenv("CONFORM_TEST_INTROSPECTION_SECRET", fakeauthz.ConfidentialSecret)
	t.Profile.MCPAuthorization.IntrospectionClientID = fakeauthz.ConfidentialID
	t.Profile.MCPAuthorization.IntrospectionClientSecretEnv = "CONFORM_TEST_INTROSPECTION_SECRET"
}
