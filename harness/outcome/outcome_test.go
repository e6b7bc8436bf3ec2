package outcome_test

import (
	"errors"
	"fmt"

	"github.com/cucumber/godog"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/spec"
)

var (
	must   = spec.Requirement{ID: "T401-1", Section: "7.2", Level: spec.Must}
	should = spec.Requirement{ID: "T401-8", Section: "7.2", Level: spec.Should}
)

func result(status outcome.Status, reqs ...spec.Requirement) outcome.Result {
	return outcome.Result{ID: fmt.Sprintf("x.feature: %s %d", status, len(reqs)), Status: status, Requirements: reqs}
}

var _ = Describe("exit codes (PRODUCT.md section 3)", func() {
	DescribeTable("decide from the counted outcomes",
		func(strict bool, want int, results ...outcome.Result) {
			Expect(outcome.Run{Strict: strict, Results: results}.ExitCode()).To(Equal(want))
		},
		Entry("every scenario passed", false, outcome.ExitPassed, result(outcome.Passed, must), result(outcome.Passed, should)),
		Entry("a MUST failure", false, outcome.ExitFailed, result(outcome.Passed, must), result(outcome.Failed, must)),
		Entry("a SHOULD failure is tolerated by default", false, outcome.ExitPassed, result(outcome.Passed, must), result(outcome.Failed, should)),
		Entry("a SHOULD failure counts under --strict", true, outcome.ExitFailed, result(outcome.Passed, must), result(outcome.Failed, should)),
		Entry("a scenario checking MUST and SHOULD is MUST", false, outcome.ExitFailed, result(outcome.Failed, should, must)),
		Entry("a harness error fails the run", false, outcome.ExitFailed, result(outcome.Passed, must), result(outcome.HarnessError, must)),
		Entry("not run without failures is incomplete", false, outcome.ExitIncomplete, result(outcome.Passed, must), result(outcome.NotRun, must)),
		Entry("a failure outweighs not run", false, outcome.ExitFailed, result(outcome.NotRun, must), result(outcome.Failed, must)),
		Entry("a run of nothing is never 0", false, outcome.ExitIncomplete),
		Entry("a run where nothing ran is never 0", false, outcome.ExitIncomplete, result(outcome.NotRun, must)),
	)

	It("tolerates a listed expected failure, and fails the run when a listed one passes", func() {
		failing := result(outcome.Failed, must)
		failing.Expected = true
		Expect(outcome.Run{Results: []outcome.Result{failing}}.ExitCode()).To(Equal(outcome.ExitPassed))

		stale := result(outcome.Passed, must)
		stale.Expected = true
		run := outcome.Run{Results: []outcome.Result{stale}}
		Expect(run.ExitCode()).To(Equal(outcome.ExitFailed))
		Expect(run.Tally().Summary()).To(HavePrefix("1 passed, 0 failed"))
		Expect(run.Tally().Summary()).To(ContainSubstring("1 expected failures now pass"))
	})
})

var _ = Describe("the summary line (issue 24 item 2)", func() {
	It("says tolerated failures beside the failures they are part of, and only without --strict", func() {
		results := []outcome.Result{result(outcome.Passed, must), result(outcome.Failed, should), result(outcome.Failed, should)}
		Expect(outcome.Run{Results: results}.Tally().Summary()).To(Equal("1 passed, 2 failed (2 tolerated)"))
		Expect(outcome.Run{Strict: true, Results: results}.Tally().Summary()).To(Equal("1 passed, 2 failed"))
	})
})

var _ = Describe("Classify", func() {
	It("blames the host only for a departure", func() {
		d := outcome.Departf("HTTP status", 401, 200)
		status, reason, dep := outcome.Classify(fmt.Errorf("step: %w", d))
		Expect(status).To(Equal(outcome.Failed))
		Expect(reason).To(BeEmpty())
		Expect(dep).To(BeIdenticalTo(d))
		Expect(d.Error()).To(Equal("HTTP status: expected 401, but actual is 200"))
	})

	It("reports a skip as not run with its reason", func() {
		err := fmt.Errorf("%w: %w", godog.ErrSkip, &outcome.Skip{Reason: "needs a credential"})
		status, reason, _ := outcome.Classify(err)
		Expect(status).To(Equal(outcome.NotRun))
		Expect(reason).To(Equal("needs a credential"))
	})

	It("calls anything else the harness's own error", func() {
		status, reason, dep := outcome.Classify(errors.New("unknown placeholder {paths.nope}"))
		Expect(status).To(Equal(outcome.HarnessError))
		Expect(reason).To(ContainSubstring("unknown placeholder"))
		Expect(dep).To(BeNil())
	})

	It("passes a scenario that ended without error", func() {
		status, _, _ := outcome.Classify(nil)
		Expect(status).To(Equal(outcome.Passed))
	})
})

var _ = Describe("Result", func() {
	It("lists its source sections in order without repeats", func() {
		r := result(outcome.Passed,
			spec.Requirement{ID: "TIME-1", Section: "3, 7.3, 8"},
			spec.Requirement{ID: "OAUTH-4", Section: "7.3"})
		Expect(r.Sections()).To(Equal([]string{"3", "7.3", "8"}))
	})
})

var _ = Describe("a scenario whose requirement does not apply", func() {
	It("leaves the run complete, and is counted as not run, not applicable", func() {
		na := outcome.Result{Status: outcome.NotRun, Reason: outcome.NotApplicable + "no introspection_endpoint"}
		ok := outcome.Result{Status: outcome.Passed}
		run := outcome.Run{Results: []outcome.Result{ok, na}}
		Expect(run.ExitCode()).To(Equal(outcome.ExitPassed))
		Expect(run.Tally().Summary()).To(Equal("1 passed, 0 failed, 1 not run (1 not applicable)"))
		lacking := outcome.Result{Status: outcome.NotRun, Reason: "needs a credential"}
		Expect(outcome.Run{Results: []outcome.Result{ok, na, lacking}}.ExitCode()).To(Equal(outcome.ExitIncomplete))
		Expect(outcome.Run{Results: []outcome.Result{na}}.ExitCode()).To(Equal(outcome.ExitIncomplete), "a run where nothing ran is never 0")
	})
})
