package runner_test

import (
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakehost"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/harness/target"
)

// needsMore says whether a scenario needs what no fake host offers here:
// control of the host's clock, real-time waits, or approval without a person.
func needsMore(r outcome.Result) bool {
	return slices.ContainsFunc(r.Tags, func(t string) bool {
		return t == "@needs-clock" || t == "@needs-time" || t == "@needs-approval"
	})
}

// describeOther is the profile of the fake host made with Other: only
// afs_read on the anonymous allowlist.
func describeOther(t *target.Target, _ *runner.Options) {
	t.Profile.Tools.Allowlisted = []string{"afs_read"}
	t.Profile.Tools.Privileged = []string{"afs_write", "afs_list", "afs_stat"}
}

// expectCompliant checks that every scenario passed, except those needing
// more than the target offers, which are not run and say why.
func expectCompliant(run outcome.Run) {
	files := map[string]int{}
	for _, r := range run.Results {
		files[r.FeatureFile]++
		if needsMore(r) {
			Expect(r.Status).To(Equal(outcome.NotRun), r.ID)
			Expect(r.Reason).NotTo(BeEmpty(), r.ID)
			continue
		}
		Expect(r.Status).To(Equal(outcome.Passed), "%s: %s %s", r.ID, r.Reason, r.Departure)
	}
	for _, f := range mcpFeatureFiles {
		Expect(files).To(HaveKey(f), "no scenario of %s ran", f)
	}
	c := run.Tally()
	Expect(c.Failed + c.HarnessErrors).To(BeZero())
	if c.NotRun > 0 {
		Expect(run.ExitCode()).To(Equal(outcome.ExitIncomplete))
	} else {
		Expect(run.ExitCode()).To(Equal(outcome.ExitPassed))
	}
}

var _ = Describe("a compliant fake host", func() {
	DescribeTable("passes every MCP-side scenario",
		func(mode fakehost.Mode) {
			expectCompliant(runFake(fakehost.MCPOptions{Mode: mode}).run)
		},
		Entry("answering with JSON", fakehost.JSON),
		Entry("answering with an event stream", fakehost.SSE),
		Entry("keeping sessions", fakehost.Sessions),
	)

	It("passes with content collections declared, when the profile says so", func() {
		expectCompliant(runFake(fakehost.MCPOptions{Collections: true}).run)
	})

	DescribeTable("passes when it chooses differently wherever the source says \"not shown\", as its profile describes", func(mode fakehost.Mode) {
		r := runFake(fakehost.MCPOptions{Other: true, Mode: mode}, describeOther)
		for _, res := range r.run.Results {
			if slices.Contains(res.Tags, "@AUTH-9") {
				// Hiding privileged tools from anonymous callers departs
				// only from the derived SHOULD, never from a MUST.
				Expect(res.Status).To(Equal(outcome.Failed), res.ID)
				Expect(r.run.Tolerated(res)).To(BeTrue(), res.ID)
				continue
			}
			Expect(res.Status).To(Equal(outcome.Passed), "%s: %s %s", res.ID, res.Reason, res.Departure)
		}
		Expect(r.run.Tally().Tolerated).To(Equal(2))
		Expect(r.run.ExitCode()).To(Equal(outcome.ExitPassed))
	},
		Entry("answering with JSON", fakehost.JSON),
		Entry("keeping sessions", fakehost.Sessions),
	)

	It("runs only the scenarios a tag expression selects", func() {
		r := runFake(fakehost.MCPOptions{}, func(_ *target.Target, o *runner.Options) { o.Tags = "@T401-8,@AFS-6" })
		var ids []string
		for _, res := range r.run.Results {
			ids = append(ids, res.ID)
			Expect(res.Status).To(Equal(outcome.Passed), res.ID)
		}
		Expect(ids).To(ConsistOf(t401JSON, afsMissingRead, afsMissingStat))
		Expect(r.run.ExitCode()).To(Equal(outcome.ExitPassed))
	})

	It("is not run where the target has no credential, naming credential_env", func() {
		r := runFake(fakehost.MCPOptions{}, func(t *target.Target, _ *runner.Options) { t.Credential = "" })
		notRun := 0
		for _, res := range r.run.Results {
			if !slices.Contains(res.Tags, "@needs-credential") {
				Expect(res.Status).To(Equal(outcome.Passed), res.ID)
				continue
			}
			notRun++
			Expect(res.Status).To(Equal(outcome.NotRun), res.ID)
			Expect(res.Reason).To(ContainSubstring("credential_env"), res.ID)
			Expect(res.Reason).To(ContainSubstring(`"CONFORM_CREDENTIAL"`), res.ID)
		}
		Expect(notRun).To(BeNumerically(">", 0))
		Expect(r.run.Tally().NotRun).To(Equal(notRun))
		Expect(r.run.ExitCode()).To(Equal(outcome.ExitIncomplete))
	})

	It("leaves the checks judged by a file's content not run when the profile's read tool cannot read what was written", func() {
		r := runFake(fakehost.MCPOptions{}, func(t *target.Target, o *runner.Options) {
			// afs_list of a file is refused: the control's read fails.
			t.Profile.Tools.Read = "afs_list"
			o.Tags = "@id:anonymous-batch-cannot-carry-privileged-call-behind,@id:anonymous-call-naming-two-tools-cannot-reach"
		})
		Expect(r.run.Results).To(HaveLen(3))
		for _, res := range r.run.Results {
			Expect(res.Status).To(Equal(outcome.NotRun), res.ID)
			Expect(res.Reason).To(ContainSubstring("reading back what the control wrote did not show it"), res.ID)
		}
	})

	It("is not run where the target has no peer, naming the peer keys", func() {
		r := runFake(fakehost.MCPOptions{}, func(t *target.Target, _ *runner.Options) { t.PeerCredential = "" })
		for _, res := range r.run.Results {
			if slices.Contains(res.Tags, "@needs-peer") {
				Expect(res.Status).To(Equal(outcome.NotRun), res.ID)
				Expect(strings.Contains(res.Reason, "peer.target") && strings.Contains(res.Reason, "peer.credential_env")).To(BeTrue(), res.Reason)
			} else {
				Expect(res.Status).To(Equal(outcome.Passed), res.ID)
			}
		}
		Expect(r.run.ExitCode()).To(Equal(outcome.ExitIncomplete))
	})
})

var _ = Describe("a compliant fake host of one MCP revision", func() {
	DescribeTable("passes every MCP-side scenario, and the report names the revision it took",
		func(mode fakehost.Mode, revision string) {
			run := runFake(fakehost.MCPOptions{Mode: mode}).run
			Expect(run.Revision).To(Equal(revision))
			for _, r := range run.Results {
				if r.Status != outcome.NotRun || needsMore(r) {
					continue
				}
				// Only the source's initialize cannot be asked of a host
				// that speaks only 2026-07-28, which removed it.
				Expect(mode).To(Equal(fakehost.Modern), "%s: %s", r.ID, r.Reason)
				Expect(r.Scenario).To(ContainSubstring("initialize"), r.Reason)
				Expect(r.Reason).To(ContainSubstring("which has no initialize"))
			}
			Expect(run.Tally().Failed+run.Tally().HarnessErrors).To(BeZero(), describeRun(run))
		},
		Entry("speaking only 2026-07-28, with its header checks", fakehost.Modern, "2026-07-28"),
		Entry("speaking only the revisions before it", fakehost.Older, "2025-11-25"),
	)
})
