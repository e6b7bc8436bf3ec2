package runner_test

import (
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakehost"
	"github.com/conform-mcp/conform/harness/outcome"
)

// placeholders is a feature whose steps name profile values by placeholder,
// one scenario running them and one stopped before them.
const placeholders = `Feature: Steps with placeholders

  @SVC-1
  Scenario: A read of the open path
    Given an anonymous caller
    When the caller calls {tools.read} on {paths.open}
    Then the HTTP status is 200

  @SVC-1
  Scenario: A read after a failing judgement
    Given an anonymous caller
    When the caller sends "tools/list"
    Then the HTTP status is 500
    When the caller calls {tools.read} on {paths.open}
`

var _ = Describe("the steps of a result", func() {
	It("carry the values a step sent in place of its placeholders, and only for steps that ran", func() {
		r := runFakeOn(fstest.MapFS{"placeholders.feature": {Data: []byte(placeholders)}}, fakehost.MCPOptions{})
		Expect(r.run.Results).To(HaveLen(2))

		ran := r.run.Results[0]
		Expect(ran.Status).To(Equal(outcome.Passed))
		Expect(ran.Steps[1].Text).To(Equal("the caller calls {tools.read} on {paths.open}"))
		Expect(ran.Steps[1].Sent).To(Equal("the caller calls afs_read on /public/readme.md"))
		Expect(ran.Steps[0].Sent).To(BeEmpty(), "a step without placeholders needs no second text")

		stopped := r.run.Results[1]
		Expect(stopped.Status).To(Equal(outcome.Failed))
		Expect(stopped.Steps[3].Status).To(Equal("skipped"))
		Expect(stopped.Steps[3].Sent).To(BeEmpty(), "a skipped step sent nothing")
	})
})
