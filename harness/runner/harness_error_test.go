package runner_test

import (
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakehost"
	"github.com/conform-mcp/conform/harness/outcome"
)

// faulty is a feature with the suite's own mistakes in it, next to a
// scenario that is fine.
const faulty = `Feature: The suite's own mistakes

  @SVC-1
  Scenario: A step nobody defined
    Given an anonymous caller
    When the caller dances a jig
    Then the HTTP status is 200

  @SVC-1
  Scenario: A placeholder the profile does not have
    Given an anonymous caller
    When the caller calls {tools.nowhere} on {paths.open}
    Then the HTTP status is 200

  @SVC-1
  Scenario: A judgement before anything was sent
    Given an anonymous caller
    Then the HTTP status is 200

  @SVC-1
  Scenario: A sound scenario
    Given an anonymous caller
    When the caller sends "tools/list"
    Then the HTTP status is 200
`

var _ = Describe("a mistake in the suite itself", func() {
	It("is a harness error, never blamed on the host", func() {
		r := runFakeOn(fstest.MapFS{"faulty.feature": {Data: []byte(faulty)}}, fakehost.MCPOptions{})
		byName := map[string]outcome.Result{}
		for _, res := range r.run.Results {
			byName[res.Scenario] = res
		}
		Expect(byName).To(HaveLen(4))

		undefined := byName["A step nobody defined"]
		Expect(undefined.Status).To(Equal(outcome.HarnessError))
		Expect(undefined.Reason).To(ContainSubstring("undefined"))
		Expect(undefined.Reason).To(ContainSubstring("the caller dances a jig"))
		Expect(undefined.Departure).To(BeNil())

		placeholder := byName["A placeholder the profile does not have"]
		Expect(placeholder.Status).To(Equal(outcome.HarnessError))
		Expect(placeholder.Reason).To(ContainSubstring("unknown placeholder {tools.nowhere}"))
		Expect(placeholder.Departure).To(BeNil())
		for _, body := range r.bodies.all() {
			Expect(body).NotTo(ContainSubstring("{tools.nowhere}"), "a placeholder left in reached the host")
		}

		early := byName["A judgement before anything was sent"]
		Expect(early.Status).To(Equal(outcome.HarnessError))
		Expect(early.Reason).To(ContainSubstring("no reply yet"))

		Expect(byName["A sound scenario"].Status).To(Equal(outcome.Passed))
		Expect(r.run.Tally().HarnessErrors).To(Equal(3))
		Expect(r.run.ExitCode()).To(Equal(outcome.ExitFailed))
	})
})
