package runner_test

import (
	"encoding/json"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakehost"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/harness/wire"
)

// departure is what one Break must do to a run: fail exactly the scenarios
// in fails, and explain the first of them with expected and actual texts
// that contain the given pieces ({base} stands for the host's base URL).
type departure struct {
	fails    []string
	expected []string
	actual   []string
}

var all401s = []string{t401Challenge, t401Unknown, t401Empty, t401Basic, t401NoScheme}

// withDiagnosis401s adds the diagnosis scenarios that follow a 401's
// challenge (source 7.5 step 3) to every 401 check.
var withDiagnosis401s = append(slices.Clone(all401s), diagAnonymous, diagPeer)

// departures covers every fakehost.MCPBreaks entry; a Break without one fails
// the table below.
var departures = map[fakehost.Break]departure{
	fakehost.ChallengeMissing: {
		fails:    withDiagnosis401s,
		expected: []string{`resource_metadata="{base}/.well-known/oauth-protected-resource"`},
		actual:   []string{"no such header"},
	},
	fakehost.ChallengeWithoutResourceMetadata: {
		fails:    withDiagnosis401s,
		expected: []string{`resource_metadata="{base}/.well-known/oauth-protected-resource"`},
		actual:   []string{`Bearer realm="fake \"host\""`},
	},
	fakehost.ChallengeWrongResourceMetadata: {
		fails:    withDiagnosis401s,
		expected: []string{`resource_metadata="{base}/.well-known/oauth-protected-resource"`},
		actual:   []string{`resource_metadata="{base}/.well-known/oauth-authorization-server"`},
	},
	fakehost.BodyNotUnauthorized: {
		fails:    all401s,
		expected: []string{`"Unauthorized"`},
		actual:   []string{"invalid_token"},
	},
	fakehost.BodyDiffersByCause: {
		fails:    []string{t401OffList, epLookupLast, t401Unknown, t401Empty, t401Basic, t401NoScheme, t401Peer},
		expected: []string{`{\"error\":\"Unauthorized\"}`},
		actual:   []string{"error_description", "method not on the anonymous allowlist"},
	},
	fakehost.BodyNotJSON: {
		fails:    []string{t401JSON},
		expected: []string{`"application/json"`},
		actual:   []string{"text/plain"},
	},
	fakehost.RefusalCarriesResult: {
		fails: []string{shapeGates, epLookupLast, authPeer, authOffRead, authOffLogging, authOffUnknown,
			authPrivileged, authGateOrder, t401Challenge, t401Unknown, t401Empty, t401Basic, t401NoScheme,
			t401OffList, t401Peer},
		expected: []string{"no JSON-RPC result"},
		actual:   []string{"HTTP 401 with a JSON-RPC result"},
	},
	fakehost.UnknownToolNotFound: {
		fails:    []string{epLookupLast},
		expected: []string{"401"},
		actual:   []string{"HTTP 404", "unknown tool conform_unlisted_tool_0"},
	},
	fakehost.UnknownToolAnswered: {
		fails:    []string{epLookupLast},
		expected: []string{"401"},
		actual:   []string{"HTTP 200 with JSON-RPC error", "unknown tool conform_unlisted_tool_0"},
	},
	fakehost.AnonymousPrivilegedReachesTool: {
		fails: []string{authPrivileged, epLookupLast, authListed, authGateOrder, shapeGates, t401Challenge,
			t401Unknown, t401Empty, t401Basic, t401NoScheme, t401OffList, t401Peer, t401JSON, diagAnonymous, authEveryPrivileged},
		expected: []string{"401"},
		actual:   []string{"HTTP 200 with a JSON-RPC result"},
	},
	fakehost.OffAllowlistAllowed: {
		fails:    []string{authOffLogging, authOffRead, authOffUnknown, t401OffList},
		expected: []string{"401"},
		actual:   []string{"HTTP 200 with a JSON-RPC result"},
	},
	fakehost.PromptsListRefused: {
		fails:    []string{epPromptsList},
		expected: []string{"200"},
		actual:   []string{"HTTP 401", "Unauthorized"},
	},
	fakehost.PeerCredentialAccepted: {
		fails:    []string{authPeer, t401Peer, diagPeer},
		expected: []string{"401"},
		actual:   []string{"HTTP 200 with a JSON-RPC result"},
	},
	fakehost.UnknownCredentialAccepted: {
		fails:    []string{t401Unknown, authPeer, t401Peer, diagPeer},
		expected: []string{"401"},
		actual:   []string{"HTTP 200 with a JSON-RPC result"},
	},
	fakehost.MalformedCredentialAnonymous: {
		fails:    []string{t401Basic, t401Empty, t401NoScheme},
		expected: []string{"401"},
		actual:   []string{"HTTP 200 with a JSON-RPC result"},
	},
	fakehost.ClosedPathNotError: {
		fails: []string{shapePolicy, authReachesPath, afsAnonRead, afsAnonList, afsAnonStat,
			afsOwnerWrite, afsOwnerRead, afsOwnerList, afsOwnerStat, diagClosed, diagOwnerClosed},
		expected: []string{"true"},
		actual:   []string{"false", "AFS_FORBIDDEN: Forbidden at /base/notes.txt"},
	},
	fakehost.ForbiddenWriteText: {
		fails:    []string{afsOwnerWrite, authReachesPath},
		expected: []string{"AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot write base paths; use a resolver overlay or internal code"},
		actual:   []string{"may not write base paths"},
	},
	fakehost.ForbiddenReadText: {
		fails:    []string{afsAnonRead, afsOwnerRead},
		expected: []string{"AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot read base paths; declare a networkRead rule or use an overlay"},
		actual:   []string{"may not read base paths"},
	},
	fakehost.ForbiddenListText: {
		fails:    []string{afsAnonList, afsOwnerList},
		expected: []string{"AFS_FORBIDDEN: Forbidden at /base: network clients cannot list base paths; declare a networkRead rule or use an overlay"},
		actual:   []string{"may not list base paths"},
	},
	fakehost.ForbiddenStatText: {
		fails:    []string{afsAnonStat, afsOwnerStat},
		expected: []string{"AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot stat base paths; declare a networkRead rule or use an overlay"},
		actual:   []string{"may not stat base paths"},
	},
	fakehost.NotFoundText: {
		fails:    []string{afsMissingRead, afsMissingStat},
		expected: []string{"AFS_NOT_FOUND: Path not found: /public/no-such-file"},
		actual:   []string{"AFS_NOT_FOUND: No such path: /public/no-such-file"},
	},
	fakehost.OwnerBypassesPathPolicy: {
		fails:    []string{afsOwnerRead, authReachesPath, afsOwnerWrite, afsOwnerList, afsOwnerStat, diagOwnerClosed},
		expected: []string{"true"},
		actual:   []string{"false"},
	},
	fakehost.NetworkReadIgnored: {
		fails:    []string{svcRead, svcList, svcStat, epCall, afsMissingRead, afsMissingStat, afsParent, diagSucceeds, diagMissing},
		expected: []string{"false"},
		actual:   []string{"AFS_FORBIDDEN: Forbidden at /public/readme.md"},
	},
	fakehost.OverlayWriteForbidden: {
		fails:    []string{authCredential, diagCredential, diagProvider},
		expected: []string{"false"},
		actual:   []string{"AFS_FORBIDDEN: Forbidden at /overlay/scratch.txt"},
	},
	fakehost.ContentToolsWithoutCollections: {
		fails:    []string{svcContent},
		expected: []string{"no content tool search_content"},
		actual:   []string{"search_content", "list_content", "get_content"},
	},
	fakehost.CapabilitiesMissing: {
		fails:    []string{svcStat, shapeCaps, diagProvider},
		expected: []string{"a capabilities list"},
		actual:   []string{"/public/readme.md is a file"},
	},
	fakehost.CapabilitiesListUnsupported: {
		fails:    []string{shapeCaps, diagProvider},
		expected: []string{`do not include "write"`},
		actual:   []string{"[list, read, stat, write]"},
	},
	fakehost.ListingOmitsChild: {
		fails:    []string{svcList},
		expected: []string{`names "readme.md"`},
		actual:   []string{"(empty)"},
	},
	fakehost.ListingNamesMissing: {
		fails:    []string{afsParent, diagMissing},
		expected: []string{`does not name "no-such-file"`},
		actual:   []string{"no-such-file"},
	},
	fakehost.Gate4TextWithoutPath: {
		fails:    []string{shapeProvider},
		expected: []string{"the path /overlay/readonly/about.md"},
		actual:   []string{"AFS_NOT_IMPLEMENTED: the docs provider has no write operation"},
	},
	fakehost.ToolsListFails: {
		fails: []string{svcDiscover, svcContent, epToolsList, epLookupLast, authOffRead, authOffLogging,
			authOffUnknown, authPrivileged, authListed, diagSucceeds, diagUnlisted, diagAnonymous, diagPeer, diagCredential, diagClosed, diagOwnerClosed, diagProvider, diagMissing},
		expected: []string{"200"},
		actual:   []string{"HTTP 500"},
	},
	fakehost.ListRefused: {
		fails:    []string{authEveryAllowlisted, svcList, afsAnonList, afsParent},
		expected: []string{"HTTP 200 with a JSON-RPC result"},
		actual:   []string{"HTTP 401"},
	},
	fakehost.DiscoveryMissing: {
		fails:    []string{epDiscovery},
		expected: []string{"200"},
		actual:   []string{"404"},
	},
}

// breakEntries makes one table entry per Break the fake host offers, so a
// Break added without a departure fails. The transport modes take turns, so
// that each mode meets about a third of the departures while the suite stays
// fast; the compliant host meets every scenario in every mode.
func breakEntries() []TableEntry {
	modes := []fakehost.Mode{fakehost.JSON, fakehost.SSE, fakehost.Sessions}
	var entries []TableEntry
	for i, b := range fakehost.MCPBreaks() {
		mode := modes[i%len(modes)]
		entries = append(entries, Entry(string(b)+" ("+string(mode)+")", mode, b))
	}
	return entries
}

// usesCredential says whether a scenario sends an Authorization header.
func usesCredential(r outcome.Result) bool {
	return slices.ContainsFunc(r.Steps, func(s outcome.Step) bool {
		return strings.HasPrefix(s.Text, "a caller with") || strings.HasPrefix(s.Text, "a caller presenting")
	})
}

// expectMasked checks that no credential of the host is shown anywhere in the
// run, and that every Authorization header shown is masked.
func expectMasked(r fakeRun) {
	raw, err := json.Marshal(r.run)
	Expect(err).NotTo(HaveOccurred())
	Expect(string(raw)).NotTo(ContainSubstring(r.host.Credential()))
	Expect(string(raw)).NotTo(ContainSubstring(r.host.PeerCredential()))
	for _, res := range r.run.Results {
		if res.Departure == nil {
			continue
		}
		for _, ex := range res.Departure.Exchanges {
			for _, v := range ex.RequestHeader["Authorization"] {
				Expect(v == wire.Masked || strings.HasSuffix(v, " "+wire.Masked)).To(BeTrue(), "Authorization %q in %s", v, res.ID)
			}
		}
	}
}

var _ = Describe("each departure of a fake host", func() {
	DescribeTable("fails exactly the scenarios that check it, for the right reason",
		func(mode fakehost.Mode, b fakehost.Break) {
			want, ok := departures[b]
			Expect(ok).To(BeTrue(), "no departure is written down for %s", b)
			r := runFake(fakehost.MCPOptions{Mode: mode, Breaks: []fakehost.Break{b}})
			base := r.target.Profile.Target

			for _, res := range r.run.Results {
				if !slices.Contains(want.fails, res.ID) {
					Expect(res.Status).To(Equal(outcome.Passed), "%s: %s %s", res.ID, res.Reason, res.Departure)
					continue
				}
				Expect(res.Status).To(Equal(outcome.Failed), "%s: %s", res.ID, res.Reason)
				d := res.Departure
				Expect(d).NotTo(BeNil())
				Expect(d.Check).NotTo(BeEmpty())
				Expect(d.Expected).NotTo(BeEmpty())
				Expect(d.Actual).NotTo(BeEmpty())
				Expect(d.Exchanges).NotTo(BeEmpty(), "%s attaches no exchange", res.ID)
				Expect(d.Exchanges[len(d.Exchanges)-1].Status).NotTo(BeZero())
				if usesCredential(res) {
					Expect(d.Exchanges).To(ContainElement(HaveField("RequestHeader", HaveKey("Authorization"))), res.ID)
				}
				if res.ID == want.fails[0] {
					for _, s := range want.expected {
						Expect(d.Expected).To(ContainSubstring(strings.ReplaceAll(s, "{base}", base)), res.ID)
					}
					for _, s := range want.actual {
						Expect(d.Actual).To(ContainSubstring(strings.ReplaceAll(s, "{base}", base)), res.ID)
					}
				}
			}
			Expect(r.run.Tally().Failed).To(Equal(len(want.fails)), "every scenario named fails")
			expectMasked(r)

			if b == fakehost.BodyNotJSON {
				// T401-8 is a SHOULD: it decides the exit code only under --strict.
				Expect(r.run.ExitCode()).To(Equal(outcome.ExitPassed))
			} else {
				Expect(r.run.ExitCode()).To(Equal(outcome.ExitFailed))
			}
		},
		breakEntries(),
	)

	It("fails a SHOULD-level departure under --strict only", func() {
		strict := runFake(fakehost.MCPOptions{Breaks: []fakehost.Break{fakehost.BodyNotJSON}},
			func(_ *target.Target, o *runner.Options) { o.Strict = true })
		Expect(strict.run.Tally().Tolerated).To(BeZero())
		Expect(strict.run.ExitCode()).To(Equal(outcome.ExitFailed))

		lenient := runFake(fakehost.MCPOptions{Breaks: []fakehost.Break{fakehost.BodyNotJSON}})
		Expect(lenient.run.Tally().Tolerated).To(Equal(1))
		Expect(lenient.run.ExitCode()).To(Equal(outcome.ExitPassed))
	})
})
