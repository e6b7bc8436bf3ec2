package runner_test

import (
	"context"
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/runner"
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
	azEmptyToken    = "mcp-authorization/authorization_9_2_token_handling.feature: A malformed token answers 401 with a Bearer challenge: an empty bearer token"
	azBadChars      = "mcp-authorization/authorization_9_2_token_handling.feature: A malformed token answers 401 with a Bearer challenge: a token with characters RFC 6750 forbids"
	azUnknown       = "mcp-authorization/authorization_9_2_token_handling.feature: A token the server never issued answers 401 with a Bearer challenge"
	azExpired       = "mcp-authorization/authorization_9_2_token_handling.feature: An expired token answers 401"
	azOtherResource = "mcp-authorization/authorization_9_2_token_handling.feature: A token issued for another resource answers 401"
	azValid         = "mcp-authorization/authorization_9_2_token_handling.feature: A valid token issued for the server is served"
	azOffline       = "mcp-authorization/authorization_10_refresh_tokens.feature: Neither the challenge nor the metadata asks for offline_access"
	azScope         = "mcp-authorization/authorization_11_1_scope_challenge.feature: A token without the scope an operation needs answers 403 with an insufficient_scope challenge"
	azOrigin        = "mcp-authorization/transport_1_origin.feature: A request with an invalid Origin answers 403 Forbidden"
)

// runAuthz runs the mcp-authorization pack against a fake with the given departures.
func runAuthz(breaks ...fakeauthz.Break) outcome.Run {
	h := fakeauthz.Start(breaks...)
	DeferCleanup(h.Close)
	run, err := runner.Run(context.Background(), runner.Options{Target: h.Target(), Pack: spec.Authorization})
	Expect(err).NotTo(HaveOccurred())
	return run
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
			b = append(b, fmt.Sprintf("%s: %s %s %v", r.ID, r.Status, r.Reason, r.Departure))
		}
	}
	return fmt.Sprint(b)
}

var _ = Describe("the mcp-authorization pack against a fake that chooses unlike the reference host", func() {
	It("passes everything: sessions, SSE, metadata at the endpoint's path only, an issuer on another origin with a path", func() {
		run := runAuthz()
		Expect(withStatus(run, outcome.Passed)).To(HaveLen(len(run.Results)), describeRun(run))
		Expect(run.Results).NotTo(BeEmpty())
		Expect(run.ExitCode()).To(Equal(outcome.ExitPassed))
	})
})

var _ = Describe("the mcp-authorization pack against a fake with one departure", func() {
	DescribeTable("fails exactly the scenarios of the broken requirement, with the requirement named",
		func(b fakeauthz.Break, failed []string, notRun []string, says string) {
			run := runAuthz(b)
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
		},
		Entry("no authorization server", fakeauthz.MetadataWithoutServers, []string{azServers}, nil, "authorization_servers"),
		Entry("no metadata to be found", fakeauthz.MetadataUndiscoverable,
			[]string{azServers, azDiscoverable, azOffline}, []string{azChallenged, azWellKnown}, "discovery.2"),
		Entry("metadata that is not JSON", fakeauthz.MetadataNotJSON,
			[]string{azServers, azDiscoverable, azChallenged, azWellKnown, azOffline}, nil, "a JSON object"),
		Entry("a resource that is the origin", fakeauthz.ResourceIsOrigin, []string{azChallenged, azWellKnown}, nil, "RFC 9728 3.3"),
		Entry("a request served without a token", fakeauthz.AnonymousServed, []string{azNoToken, azChallenged}, nil, "HTTP status"),
		Entry("a 401 without a challenge", fakeauthz.ChallengeMissing,
			[]string{azNoToken, azEmptyToken, azBadChars, azUnknown}, []string{azChallenged}, "Bearer challenge"),
		Entry("a malformed token served", fakeauthz.MalformedServed, []string{azEmptyToken, azBadChars}, nil, "expected 401"),
		Entry("an unknown token served", fakeauthz.UnknownAccepted, []string{azUnknown}, nil, "expected 401"),
		Entry("an expired token served", fakeauthz.ExpiredAccepted, []string{azExpired}, nil, "expected 401"),
		Entry("a token for another resource served", fakeauthz.AudienceIgnored, []string{azOtherResource}, nil, "expected 401"),
		Entry("every valid token refused", fakeauthz.ValidRefused, []string{azValid, azScope}, []string{azOrigin}, "HTTP status"),
		Entry("a scope challenge naming no scope", fakeauthz.ScopeChallengeBare, []string{azScope}, nil, "scope"),
		Entry("offline_access asked for", fakeauthz.OfflineAccessAdvertised, []string{azOffline}, nil, "offline_access"),
		Entry("the Origin ignored", fakeauthz.OriginIgnored, []string{azOrigin}, nil, "expected 403"),
	)
})
