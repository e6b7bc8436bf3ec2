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
	// notRun are scenarios the departure leaves nothing to check in; every
	// scenario in neither list must pass.
	notRun []string
}

// departures covers every fakehost.MCPBreaks entry; a Break without one fails
// the table below.
var departures = map[fakehost.Break]departure{
	fakehost.ChallengeMissing: {
		fails:    []string{t401Challenge, t401Unknown, t401Empty, t401EmptyHeader, t401Basic, t401NoScheme, diagRejected, diagAnonymous, diagPeer},
		expected: []string{`resource_metadata="{base}/.well-known/oauth-protected-resource"`},
		actual:   []string{"no such header"},
		notRun:   []string{t401Once, t401OnceUnknown},
	},
	fakehost.ChallengeWithoutResourceMetadata: {
		fails:    []string{t401Challenge, t401Unknown, t401Empty, t401EmptyHeader, t401Basic, t401NoScheme, diagRejected, diagAnonymous, diagPeer},
		expected: []string{`resource_metadata="{base}/.well-known/oauth-protected-resource"`},
		actual:   []string{`Bearer realm="fake \"host\""`},
	},
	fakehost.ChallengeWrongResourceMetadata: {
		fails:    []string{t401Challenge, t401Unknown, t401Empty, t401EmptyHeader, t401Basic, t401NoScheme, diagRejected, diagAnonymous, diagPeer},
		expected: []string{`resource_metadata="{base}/.well-known/oauth-protected-resource"`},
		actual:   []string{`resource_metadata="{base}/.well-known/oauth-authorization-server"`},
	},
	fakehost.BodyNotUnauthorized: {
		fails:    []string{t401Challenge, t401Unknown, t401Empty, t401EmptyHeader, t401Basic, t401NoScheme},
		expected: []string{`"Unauthorized"`},
		actual:   []string{"invalid_token"},
	},
	fakehost.BodyDiffersByCause: {
		fails:    []string{t401OffList, epLookupLast, t401Unknown, t401Empty, t401EmptyHeader, t401Basic, t401NoScheme, t401Peer},
		expected: []string{`{\"error\":\"Unauthorized\"}`},
		actual:   []string{"error_description", "method not on the anonymous allowlist"},
	},
	fakehost.BodyNotJSON: {
		fails:    []string{t401JSON},
		expected: []string{`"application/json"`},
		actual:   []string{"text/plain"},
	},
	fakehost.RefusalCarriesResult: {
		fails:    []string{shapeGates, epLookupLast, authPeer, authOffPing, authOffDiscover, authOffCompletion, authOffRead, authOffPromptsGet, authOffLogging, authOffUnknown, authPrivileged, authGateOrder, authCredentialOrder, t401Challenge, t401Unknown, t401Empty, t401EmptyHeader, t401Basic, t401NoScheme, t401OffList, t401Peer, authQuery},
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
		fails:    []string{authPrivileged, epLookupLast, authEveryPrivileged, authListed, authGateOrder, shapeGates, t401Challenge, t401Unknown, t401Empty, t401EmptyHeader, t401Basic, t401NoScheme, t401OffList, t401Peer, t401JSON, diagAnonymous, authQuery, authTwoNamesFirst},
		expected: []string{"401"},
		actual:   []string{"HTTP 200 with a JSON-RPC result"},
		notRun:   []string{t401Once},
	},
	fakehost.OffAllowlistAllowed: {
		fails:    []string{authOffLogging, authOffPing, authOffDiscover, authOffCompletion, authOffRead, authOffPromptsGet, authOffUnknown, t401OffList},
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
		fails:    []string{t401Unknown, authPeer, authCredentialOrder, t401Peer, diagRejected, diagPeer},
		expected: []string{"401"},
		actual:   []string{"HTTP 200 with a JSON-RPC result"},
		notRun:   []string{t401OnceUnknown},
	},
	fakehost.MalformedCredentialAnonymous: {
		fails:    []string{t401Basic, t401Empty, t401EmptyHeader, t401NoScheme},
		expected: []string{"401"},
		actual:   []string{"HTTP 200 with a JSON-RPC result"},
	},
	fakehost.ClosedPathNotError: {
		fails:    []string{shapePolicy, authReachesPath, authPolicyOrder, authLookupOrder, spellDotDot, spellDouble, spellDot, spellTrailing, spellEncoded, spellEncodedDots, afsAdmittedRead, afsAdmittedList, afsAdmittedStat, afsOwnerWrite, afsOwnerRead, afsOwnerList, afsOwnerStat, diagClosed, diagOwnerClosed},
		expected: []string{"true"},
		actual:   []string{"false", "AFS_FORBIDDEN: Forbidden at /base/notes.txt"},
	},
	fakehost.ForbiddenWriteText: {
		fails:    []string{afsOwnerWrite, authReachesPath, authPolicyOrder},
		expected: []string{"AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot write base paths; use a resolver overlay or internal code"},
		actual:   []string{"may not write base paths"},
	},
	fakehost.ForbiddenReadText: {
		fails:    []string{afsAdmittedRead, authLookupOrder, afsOwnerRead},
		expected: []string{"AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot read base paths; declare a networkRead rule or use an overlay"},
		actual:   []string{"may not read base paths"},
	},
	fakehost.ForbiddenListText: {
		fails:    []string{afsAdmittedList, afsOwnerList},
		expected: []string{"AFS_FORBIDDEN: Forbidden at /base: network clients cannot list base paths; declare a networkRead rule or use an overlay"},
		actual:   []string{"may not list base paths"},
	},
	fakehost.ForbiddenStatText: {
		fails:    []string{afsAdmittedStat, afsOwnerStat},
		expected: []string{"AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot stat base paths; declare a networkRead rule or use an overlay"},
		actual:   []string{"may not stat base paths"},
	},
	fakehost.NotFoundText: {
		fails:    []string{afsMissingRead, afsMissingStat},
		expected: []string{"AFS_NOT_FOUND: Path not found: /public/no-such-file"},
		actual:   []string{"AFS_NOT_FOUND: No such path: /public/no-such-file"},
	},
	fakehost.OwnerBypassesPathPolicy: {
		fails:    []string{afsOwnerRead, authReachesPath, authPolicyOrder, afsOwnerWrite, afsOwnerList, afsOwnerStat, diagOwnerClosed},
		expected: []string{"true"},
		actual:   []string{"false"},
	},
	fakehost.NetworkReadIgnored: {
		fails:    []string{svcRead, svcList, svcStat, epCall, afsMissingRead, afsMissingStat, afsParent, diagSucceeds, diagMissing, authOpenRead, authOpenList, authOpenStat},
		expected: []string{"false"},
		actual:   []string{"AFS_FORBIDDEN: Forbidden at /public/readme.md"},
		notRun:   []string{svcCapsRead, svcCapsList},
	},
	fakehost.OverlayWriteForbidden: {
		fails:    []string{authCredential, diagCredential, diagProvider},
		expected: []string{"false"},
		actual:   []string{"AFS_FORBIDDEN: Forbidden at /overlay/scratch.txt"},
		notRun:   []string{authBatch, authQuery, authTwoNamesFirst, authTwoNamesLast},
	},
	fakehost.ContentToolsWithoutCollections: {
		fails:    []string{svcContent},
		expected: []string{"no content tool search_content"},
		actual:   []string{"search_content", "list_content", "get_content"},
	},
	fakehost.CapabilitiesMissing: {
		fails:    []string{svcStat, shapeCaps, diagProvider, svcCapsRead, svcCapsList},
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
		fails:    []string{svcDiscover, svcContent, epToolsList, epLookupLast, authCredential, authOffPing, authOffDiscover, authOffCompletion, authOffRead, authOffPromptsGet, authOffLogging, authOffUnknown, authPrivileged, authEveryListed, authListed, authReachesPath, authPolicyOrder, shapeProvider, afsOwnerWrite, afsOwnerRead, afsOwnerList, afsOwnerStat, diagSucceeds, diagUnlisted, diagRejected, diagAnonymous, diagPeer, diagCredential, diagClosed, diagOwnerClosed, diagProvider, diagMissing, authOpenRead, authOpenList, authOpenStat},
		expected: []string{"200"},
		actual:   []string{"HTTP 500"},
	},
	// The scenarios about the path policy that chose an anonymous caller
	// because the profile allowlists afs_list are not run, naming the key:
	// the allowlist itself is judged by the scenario calling every tool on it.
	fakehost.ListRefused: {
		fails:    []string{authEveryAllowlisted},
		expected: []string{"HTTP 200 with a JSON-RPC result"},
		actual:   []string{"HTTP 401"},
		notRun:   []string{svcCapsList, svcList, afsAdmittedList, afsParent},
	},
	fakehost.PingAllowed: {
		fails:    []string{authOffPing},
		expected: []string{"401"},
		actual:   []string{"HTTP 200 with a JSON-RPC result"},
	},
	fakehost.InitializeRefused: {
		fails:    []string{epInitialize},
		expected: []string{"200"},
		actual:   []string{"HTTP 401"},
	},
	fakehost.ResourcesListRefused: {
		fails:    []string{epResourcesList},
		expected: []string{"200"},
		actual:   []string{"HTTP 401"},
	},
	fakehost.PathToolsUnknown: {
		fails: []string{shapePolicy, svcDiscover, svcList, svcStat, svcRead, epCall, epLookupLast, authCredential, authPrivileged,
			authEveryPrivileged, authEveryAllowlisted, authListed, authGateOrder, authReachesPath, authPolicyOrder, authLookupOrder,
			spellDotDot, spellDouble, spellDot, spellTrailing, spellEncoded, spellEncodedDots, shapeGates, shapeProvider, shapeCaps,
			t401Challenge, t401Unknown, t401Empty, t401EmptyHeader, t401Basic, t401NoScheme, t401OffList, t401Peer, t401JSON, afsAdmittedRead,
			afsAdmittedList, afsAdmittedStat, afsOwnerWrite, afsOwnerRead, afsOwnerList, afsOwnerStat, afsMissingRead, afsMissingStat,
			afsParent, diagSucceeds, diagAnonymous, diagCredential, diagClosed, diagOwnerClosed, diagProvider, diagMissing, authOpenRead, authOpenList, authOpenStat},
		expected: []string{"tools/list, asked by the same caller, names afs_read", "a name the host does not know answers 401"},
		actual:   []string{"tools/list names echo", "the unknown name conform_unlisted_tool_0 answered HTTP 200 with a JSON-RPC result"},
		notRun:   []string{authEveryListed, svcCapsRead, svcCapsList, authBatch, authQuery, authTwoNamesFirst, authTwoNamesLast, t401Once},
	},
	fakehost.ListedStatAnswers404: {
		fails:    []string{authEveryListed, svcStat, authEveryAllowlisted, shapeCaps, afsAdmittedStat, afsOwnerStat, afsMissingStat, diagProvider, svcCapsRead, svcCapsList, authOpenStat},
		expected: []string{"a JSON-RPC result (an allowlisted tool) or HTTP 401 (a privileged tool)"},
		actual:   []string{"HTTP 404"},
	},
	fakehost.NothingAfterPath: {
		fails:    []string{shapeProvider},
		expected: []string{"an explanation after the path /overlay/readonly/about.md"},
		actual:   []string{"nothing follows the path"},
	},
	fakehost.RejectedCredentialReachesPolicy: {
		fails:    []string{authCredentialOrder},
		expected: []string{"401"},
		actual:   []string{"HTTP 200 with a JSON-RPC result"},
	},
	fakehost.ProviderBeforePolicy: {
		fails:    []string{authPolicyOrder},
		expected: []string{"AFS_FORBIDDEN: Forbidden at /public/readme.md: network clients cannot write base paths"},
		actual:   []string{"AFS_NOT_IMPLEMENTED"},
	},
	fakehost.NotFoundBeforePolicy: {
		fails:    []string{authLookupOrder},
		expected: []string{"AFS_FORBIDDEN: Forbidden at /base/conform-no-such-file: network clients cannot read base paths"},
		actual:   []string{"AFS_NOT_FOUND: Path not found: /base/conform-no-such-file"},
	},
	fakehost.DotDotOpensPath: {
		fails:    []string{spellDotDot},
		expected: []string{"a refusal of any kind"},
		actual:   []string{"success", "A file the host has not opened."},
	},
	fakehost.DecodesAfterPolicy: {
		fails:    []string{spellEncodedDots},
		expected: []string{"a refusal of any kind"},
		actual:   []string{"success", "A file the host has not opened."},
	},
	fakehost.ContentToolsMissing: {
		fails:    []string{svcContent},
		expected: []string{"the content tool search_content (the profile says collections are declared)"},
		actual:   []string{"afs_list"},
	},
	fakehost.DiscoveryMissing: {
		fails:    []string{epDiscovery},
		expected: []string{"200"},
		actual:   []string{"404"},
	},
	fakehost.BatchGatedByFirst: {
		fails:    []string{authBatch},
		expected: []string{"no JSON-RPC result"},
		actual:   []string{"a result for it"},
	},
	fakehost.EmptyHeaderAnonymous: {
		fails:    []string{t401EmptyHeader},
		expected: []string{"401"},
		actual:   []string{"HTTP 200 with a JSON-RPC result"},
	},
	fakehost.QueryCredentialAccepted: {
		fails:    []string{authQuery},
		expected: []string{"a 4xx status"},
		actual:   []string{"HTTP 200 with a JSON-RPC result"},
	},
	fakehost.CredentialClosesOpenPath: {
		fails:    []string{authOpenRead, authOpenList, authOpenStat},
		expected: []string{"false"},
		actual:   []string{"AFS_FORBIDDEN: Forbidden at /public"},
	},
	fakehost.CapabilitiesOnlyStat: {
		fails:    []string{svcCapsRead, svcCapsList},
		expected: []string{`include "read"`},
		actual:   []string{"[stat]"},
	},
	fakehost.ChallengeRealmRepeated: {
		fails:    []string{t401Once, t401OnceUnknown},
		expected: []string{"realm, scope, error, error_description and error_uri each at most once"},
		actual:   []string{"realm more than once"},
	},
	fakehost.GateReadsFirstName: {
		fails:    []string{authTwoNamesFirst},
		expected: []string{"as the control wrote it"},
		actual:   []string{"smuggled by the conformance suite"},
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

// usesCredential says whether the caller at the failing step of a scenario
// sends an Authorization header: the last caller named before it.
func usesCredential(r outcome.Result) bool {
	credential := false
	for _, s := range r.Steps {
		switch {
		case strings.HasPrefix(s.Text, "a caller with") || strings.HasPrefix(s.Text, "a caller presenting"):
			credential = true
		case strings.HasPrefix(s.Text, "an anonymous caller"):
			credential = false
		}
		if s.Status == "failed" {
			break
		}
	}
	return credential
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
			// Content tools missing is a departure only where collections are declared.
			r := runFake(fakehost.MCPOptions{Mode: mode, Breaks: []fakehost.Break{b}, Collections: b == fakehost.ContentToolsMissing})
			base := r.target.Profile.Target

			for _, res := range r.run.Results {
				if slices.Contains(want.notRun, res.ID) {
					Expect(res.Status).To(Equal(outcome.NotRun), res.ID)
					Expect(res.Reason).NotTo(BeEmpty(), res.ID)
					continue
				}
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
