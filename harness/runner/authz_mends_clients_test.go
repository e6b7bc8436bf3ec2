package runner_test

import (
	"bytes"
	"context"
	"io"
	"net/url"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/credentials"
	"github.com/conform-mcp/conform/harness/fakeauthz"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/report"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/spec"
)

// publicOnly are the rules that bind the authorization server for public
// clients alone (OAuth 2.1 4.1.2.1 and 4.3.1): against a server that makes
// every client confidential they are not run.
var publicOnly = []string{asNoChallenge, asRotated, asReplay, tkRotationReplay, asNoChallErr}

// Issue 21 item 3, j to r: the verdicts real servers showed wrong about the
// run's clients, their authentication and what the run says of them.
var _ = Describe("the mcp-authorization pack's clients, as real authorization servers treat them", func() {
	It("runs the flows with the client_secret and token_endpoint_auth_method a registration answers with, leaving only the public clients' rules not run (item n)", func() {
		run := runAuthz(fakeauthz.ConfidentialRegistration)
		expectConfidentialRegistration(run)
		for _, id := range []string{asCodeOnce, asBadVerifier, asCodeClient, asRefreshClient, asWider, asTokenResp} {
			Expect(resultOf(run, id).Status).To(Equal(outcome.Passed), id)
		}
	})

	It("authenticates by exactly one method, never HTTP Basic and client_id in the form together (item m)", func() {
		expectConfidentialRegistration(runAuthz(fakeauthz.ConfidentialRegistration, fakeauthz.TwoMethodsRefused))
	})

	It("obtains the run's credential with the secret its registration answered with, and the scenarios reuse that client (items m, n)", func() {
		h := fakeauthz.Start(fakeauthz.ConfidentialRegistration, fakeauthz.TwoMethodsRefused)
		DeferCleanup(h.Close)
		t := h.Target()
		t.Credential = ""
		credentials.Authorization(context.Background(), t, io.Discard)
		Expect(t.Credential).NotTo(BeEmpty(), t.CredentialUnobtained)
		Expect(t.Tokens.Client.Secret).NotTo(BeEmpty())
		Expect(t.Tokens.Client.Method).To(Equal("client_secret_basic"))
		run, err := runner.Run(context.Background(), runner.Options{Target: t, Pack: spec.Authorization, Tags: fakeRunnable})
		Expect(err).NotTo(HaveOccurred())
		expectConfidentialRegistration(run)
		// The pre-flight's client, then the second client, REG-2's own
		// registration and those of the registration response's
		// scenarios that register a client of their own: none for the
		// scenarios' client.
		Expect(h.Registered()).To(Equal(5))
	})

	It("obtains the run's credential from a server that refuses a short state, as ORY Hydra does, and passes it", func() {
		h := fakeauthz.Start(fakeauthz.StateEntropyRequired)
		DeferCleanup(h.Close)
		t := h.Target()
		t.Credential = ""
		credentials.Authorization(context.Background(), t, io.Discard)
		Expect(t.Credential).NotTo(BeEmpty(), t.CredentialUnobtained)
		expectAuthzCompliant(runAuthz(fakeauthz.StateEntropyRequired))
	})

	It("judges PKCE-2 with a public client only, leaving it not run when the server made the client confidential, and fails PKCE-6, a SHOULD, for the code it issued the confidential client without code_challenge (item j)", func() {
		run := runAuthz(fakeauthz.ConfidentialPKCEOptional)
		expectOffered(run, []string{regExpiry, asConfNoChall}, []string{regNative, asConfNoChall}, slices.Clone(publicOnly), "")
		Expect(resultOf(run, asNoChallenge).Reason).To(ContainSubstring("rejects requests without a code_challenge from public clients (OAuth 2.1 4.1.2.1)"))
		d := resultOf(run, asConfNoChall).Departure
		Expect(d.Error()).To(ContainSubstring("redeemed for an access token without code_verifier"))
		Expect(d.Error()).To(ContainSubstring("still RECOMMENDED"))
		Expect(run.ExitCode()).NotTo(Equal(outcome.ExitFailed))
	})

	It("passes PKCE-6 against a server that issues a confidential client a code without code_challenge but refuses to redeem it (OAuth 2.1 4.1.3)", func() {
		run := runAuthz(fakeauthz.ChallengeEnforcedAtToken)
		expectConfidentialRegistration(run)
		Expect(resultOf(run, asConfNoChall).Status).To(Equal(outcome.Passed))
	})

	It("fails PKCE-3 against a server that redeems any code_verifier, not inferring that it supports plain (item k)", func() {
		// ERRSYN-1's token error response is not provoked: any verifier is served.
		expectDeparture(fakeauthz.AnyVerifier, []string{asPlain, asNoVerifier, asBadVerifier}, []string{tkTokenErrText}, "OAuth 2.1")
		run := runAuthz(fakeauthz.AnyVerifier)
		Expect(resultOf(run, asPlain).Departure.Error()).To(ContainSubstring("checks no code_verifier and does not support plain"))
	})

	It("leaves CODE-2 and REFRESH-3 not run, saying so, when registration answers the first client's client_id again (item l)", func() {
		run := runAuthz(fakeauthz.RegistrationSameClientID)
		for _, id := range []string{asCodeClient, asRefreshClient} {
			Expect(resultOf(run, id).Status).To(Equal(outcome.NotRun), id)
			Expect(resultOf(run, id).Reason).To(ContainSubstring(`the registration answered the client_id "conform-shared" of the client the run uses already`), id)
		}
	})

	It("leaves CODE-2 and REFRESH-3 not run, naming the key, when the profile's second client is the first", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			t.Profile.MCPAuthorization.ClientID = fakeauthz.SecondID
			t.Profile.MCPAuthorization.SecondClientID = fakeauthz.SecondID
		})
		expectNotRun(run, []string{asCodeClient, asRefreshClient}, "mcp_authorization.second_client_id names the client_id")
	})

	It("asks for offline_access when the authorization server advertises it, so that the refresh rules run (item o)", func() {
		run := runAuthz(fakeauthz.RefreshOnlyOfflineAccess)
		expectApplicablePass(run)
	})

	It("says, when no refresh token comes, that offline_access was advertised and asked for (item o)", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			// The person consents to everything but offline_access.
			approve := t.ApproveAuthorization
			t.ApproveAuthorization = func(ctx context.Context, u string) (string, error) {
				return approve(ctx, withoutScope(u, "offline_access"))
			}
		}, fakeauthz.RefreshOnlyOfflineAccess)
		expectNotRun(run, []string{asRotated, asReplay, asRefreshClient, asWider, asRetarget, tkEmptyScope, tkRefreshScope, tkRotationReplay, tkRefreshChanged},
			"its metadata's scopes_supported names offline_access, and the authorization request asked for it")
	})

	It("says, when no refresh token comes, that offline_access was neither advertised nor asked for (item o)", func() {
		expectNotRun(runAuthz(fakeauthz.RefreshOnlyOfflineAccessUnadvertised), []string{asRotated, asReplay, asRefreshClient, asWider, asRetarget, tkEmptyScope, tkRefreshScope, tkRotationReplay, tkRefreshChanged},
			"its metadata's scopes_supported does not name offline_access, and the authorization request did not ask for it")
	})
})

// withoutScope is an authorization URL whose scope lacks one scope.
func withoutScope(authorizationURL, scope string) string {
	u, err := url.Parse(authorizationURL)
	Expect(err).NotTo(HaveOccurred())
	q := u.Query()
	q.Set("scope", strings.Join(slices.DeleteFunc(strings.Fields(q.Get("scope")), func(s string) bool { return s == scope }), " "))
	u.RawQuery = q.Encode()
	return u.String()
}

// runWithoutProfile runs the pack as conform run does with nothing but the
// target's URL: the pre-flight, then the scenarios, with no credential and
// no tokens of the profile's.
func runWithoutProfile(b fakeauthz.Break) outcome.Run {
	h := fakeauthz.Start(b)
	DeferCleanup(h.Close)
	t := h.Target()
	t.Credential, t.Tokens = "", target.Tokens{}
	t.Profile.MCPAuthorization.ProtectedRequest.Method = ""
	pack, err := runner.LookupPack(spec.Authorization)
	Expect(err).NotTo(HaveOccurred())
	Expect(pack.Preflight.Check(context.Background(), t)).To(Succeed())
	run, err := runner.Run(context.Background(), runner.Options{Target: t, Pack: spec.Authorization})
	Expect(err).NotTo(HaveOccurred())
	return run
}

var _ = Describe("the mcp-authorization pack against servers that do not use OAuth at all (item p)", func() {
	It("runs a server without authorization past the pre-flight, passes its Origin rule, and finds the rest not applicable", func() {
		run := runWithoutProfile(fakeauthz.NoAuthorization)
		Expect(withStatus(run, outcome.Passed)).To(Equal([]string{azOrigin}), describeRun(run))
		for _, r := range run.Results {
			if r.ID != azOrigin {
				Expect(r.Status).To(Equal(outcome.NotRun), r.ID)
				Expect(r.Reason).To(ContainSubstring("not applicable"), r.ID)
				Expect(r.Reason).To(ContainSubstring("does not implement MCP authorization"), r.ID)
			}
		}
		Expect(run.ExitCode()).NotTo(Equal(outcome.ExitFailed))
	})

	It("runs a server that asks for HTTP Basic past the pre-flight, tolerates AUTHZ-1's failure, and says why the Origin rule cannot be judged", func() {
		run := runWithoutProfile(fakeauthz.BasicAuthOnly)
		Expect(withStatus(run, outcome.Failed)).To(Equal([]string{azAuthz}), describeRun(run))
		Expect(run.Tolerated(resultOf(run, azAuthz))).To(BeTrue())
		Expect(resultOf(run, azOrigin).Reason).To(ContainSubstring(`WWW-Authenticate "Basic realm=\"fakeauthz\""`))
		Expect(resultOf(run, azOrigin).Reason).NotTo(ContainSubstring("set credential_env"))
		for _, r := range run.Results {
			if r.ID != azAuthz && r.ID != azOrigin {
				Expect(r.Reason).To(ContainSubstring("not applicable"), r.ID)
			}
		}
		Expect(run.ExitCode()).NotTo(Equal(outcome.ExitFailed))
	})
})

var _ = Describe("the mcp-authorization pack's not-run reasons name their actual cause (item q)", func() {
	It("says the client needs a secret, not another grant, when the token endpoint refuses a client that has none", func() {
		run := runAuthz(fakeauthz.ConfidentialRegistration, fakeauthz.RegistrationEchoesNothing)
		// REG-10 is the one departure: the registration returns no metadata.
		Expect(withStatus(run, outcome.Failed)).To(Equal([]string{regEcho}), describeRun(run))
		r := resultOf(run, asCodeOnce)
		Expect(r.Status).To(Equal(outcome.NotRun))
		Expect(r.Reason).To(ContainSubstring("and it has no secret"))
		Expect(r.Reason).To(ContainSubstring("mcp_authorization.client_secret_env"))
		Expect(r.Reason).NotTo(ContainSubstring("lets use the authorization code grant"))
	})

	It("says the credential itself is refused, not that protected_request is wrong, when the server answers it 401", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) { t.Credential = t.Tokens.Expired })
		for _, id := range []string{azUnknown, azTampered, azQuery} {
			r := resultOf(run, id)
			Expect(r.Status).To(Equal(outcome.NotRun), id)
			Expect(r.Reason).To(ContainSubstring("the server refuses the target's credential itself (HTTP 401"), id)
			Expect(r.Reason).To(ContainSubstring("expired or was revoked"), id)
			Expect(r.Reason).NotTo(ContainSubstring("mcp_authorization.protected_request"), id)
		}
	})

	It("names why the harness could not obtain the credential, not only conform login, where a scenario needs it", func() {
		h := fakeauthz.Start(fakeauthz.ApprovalRefusedInvalidScope)
		DeferCleanup(h.Close)
		t := h.Target()
		t.Credential = ""
		credentials.Authorization(context.Background(), t, io.Discard)
		Expect(t.Credential).To(BeEmpty())
		run, err := runner.Run(context.Background(), runner.Options{Target: t, Pack: spec.Authorization})
		Expect(err).NotTo(HaveOccurred())
		for _, id := range []string{azUnknown, azTampered, azExpired} {
			Expect(resultOf(run, id).Status).To(Equal(outcome.NotRun), id)
			Expect(resultOf(run, id).Reason).To(ContainSubstring("could not obtain a token for "+h.Endpoint()+" from "), id)
			Expect(resultOf(run, id).Reason).To(ContainSubstring("invalid_scope"), id)
		}
	})
})

var _ = Describe("the mcp-authorization pack's output (item r)", func() {
	It("shows no empty exchange for an authorization response the approval command handed back, and says where it came from", func() {
		run := runAuthz(fakeauthz.IssMissing)
		d := resultOf(run, asIssSuccess3).Departure
		Expect(d).NotTo(BeNil(), describeRun(run))
		Expect(d.Actual).To(ContainSubstring("handed back by the approval command"))
		for _, r := range run.Results {
			if r.Departure != nil {
				for _, ex := range r.Departure.Exchanges {
					Expect(ex.Method).NotTo(BeEmpty(), r.ID)
				}
			}
		}
		var b bytes.Buffer
		Expect(report.Pretty{}.Write(&b, run)).To(Succeed())
		Expect(b.String()).NotTo(ContainSubstring("HTTP 0"))
	})

	It("says a target that stopped answering is the target's doing, not the harness's fault as well", func() {
		run := runAuthz(fakeauthz.StopsAnswering)
		Expect(withStatus(run, outcome.HarnessError)).NotTo(BeEmpty(), describeRun(run))
		for _, r := range []report.Writer{report.Pretty{}, report.HTML{}} {
			var b bytes.Buffer
			Expect(r.Write(&b, run)).To(Succeed())
			Expect(b.String()).To(ContainSubstring("the target stopped answering"))
			Expect(b.String()).NotTo(ContainSubstring("fault in the harness"))
		}
	})

	It("says an authorization response carries no state parameter, not []", func() {
		run := runAuthzWith(func(_ *fakeauthz.Host, t *target.Target) {
			approve := t.ApproveAuthorization
			t.ApproveAuthorization = func(ctx context.Context, u string) (string, error) {
				back, err := approve(ctx, u)
				if err != nil {
					return back, err
				}
				loc, err := url.Parse(back)
				Expect(err).NotTo(HaveOccurred())
				q := loc.Query()
				q.Del("state")
				loc.RawQuery = q.Encode()
				return loc.String(), nil
			}
		})
		d := resultOf(run, asStateOK).Departure
		Expect(d).NotTo(BeNil(), describeRun(run))
		Expect(d.Actual).To(HavePrefix("no state parameter in "))
	})

	It("names the MCP endpoint at its whole path as the target, as the command line fits it", func() {
		h := fakeauthz.Start(fakeauthz.EndpointNested)
		DeferCleanup(h.Close)
		t := h.Target()
		given := profile.Default(h.Endpoint())
		t.Profile.MCPEndpoint, t.Profile.Target, t.Profile.RawTarget = "", given.Target, given.RawTarget
		pack, err := runner.LookupPack(spec.Authorization)
		Expect(err).NotTo(HaveOccurred())
		pack.Fit(&t.Profile)
		run, err := runner.Run(context.Background(), runner.Options{Target: t, Pack: spec.Authorization})
		Expect(err).NotTo(HaveOccurred())
		Expect(run.Target).To(Equal(h.Endpoint()))
		Expect(run.Target).To(HaveSuffix("/api/v1/mcp"))
	})
})

// expectConfidentialRegistration holds a run against a fake whose
// registration makes every client confidential: the rules that bind public
// clients alone are not run, and REG-8's SHOULD (a native client that asks
// for none kept public) is the tolerated failure; the secret it issues lets
// REG-11 run, and the confidential client PKCE-6.
func expectConfidentialRegistration(run outcome.Run) {
	GinkgoHelper()
	expectOffered(run, []string{regExpiry, asConfNoChall}, []string{regNative}, slices.Clone(publicOnly), "")
	for _, id := range publicOnly {
		Expect(resultOf(run, id).Reason).To(ContainSubstring("is a confidential client"), id)
	}
	Expect(run.Tolerated(resultOf(run, regNative))).To(BeTrue())
}
