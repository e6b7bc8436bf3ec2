package runner_test

import (
	"slices"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakehost"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/spec"
)

// spender is a feature whose first scenario must run last, the way the
// registration-limit probe spends what later scenarios need.
const spender = `Feature: A spender

  @SVC-1 @run-last
  Scenario: Spends the allowance
    Given an anonymous caller
    When the caller sends "tools/list"
    Then the HTTP status is 200

  @SVC-1
  Scenario: Comes first in the spender's file
    Given an anonymous caller
    When the caller sends "tools/list"
    Then the HTTP status is 200
`

const later = `Feature: A later file

  @SVC-1
  Scenario: Comes from a later file
    Given an anonymous caller
    When the caller sends "tools/list"
    Then the HTTP status is 200

  @SVC-2 @run-last
  Scenario: Also last
    Given an anonymous caller
    When the caller sends "tools/list"
    Then the HTTP status is 200
`

func scenarioNames(run outcome.Run) []string {
	var names []string
	for _, r := range run.Results {
		names = append(names, r.Scenario)
	}
	return names
}

var _ = Describe("the order of a run", func() {
	fsys := fstest.MapFS{"a_spender.feature": {Data: []byte(spender)}, "b_later.feature": {Data: []byte(later)}}

	It("runs the scenarios tagged @run-last after every other, whatever their file", func() {
		r := runFakeOn(fsys, fakehost.MCPOptions{})
		Expect(scenarioNames(r.run)).To(Equal([]string{
			"Comes first in the spender's file", "Comes from a later file", "Spends the allowance", "Also last"}))
		Expect(r.run.Tally().Passed).To(Equal(4))
	})

	It("keeps the user's tag selection in both passes", func() {
		r := runFakeOn(fsys, fakehost.MCPOptions{}, func(_ *target.Target, o *runner.Options) { o.Tags = "@SVC-2" })
		Expect(scenarioNames(r.run)).To(Equal([]string{"Also last"}))
	})
})

var _ = Describe("the embedded features", func() {
	It("tag every registration-limit probe @run-last, so that it spends the allowance after the rest", func() {
		for _, pack := range spec.Packs() {
			listed, err := runner.List(pack, "", nil)
			Expect(err).NotTo(HaveOccurred())
			probes, err := runner.List(pack, runner.RunLast, nil)
			Expect(err).NotTo(HaveOccurred())
			last := map[string]bool{}
			for _, l := range probes {
				last[l.ID] = true
			}
			for _, l := range listed {
				if slices.Contains(l.Requirements, "OAUTH-6") || slices.Contains(l.Requirements, "OAUTH-7") {
					Expect(last).To(HaveKey(l.ID))
				}
			}
		}
	})
})
