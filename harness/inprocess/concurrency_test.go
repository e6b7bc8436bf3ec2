package inprocess_test

import (
	"context"
	"fmt"
	"os"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/inprocess"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/spec"
)

// verdicts is a run's scenarios, in the report's order, each with its
// outcome and reason: what a report says, less its timings.
func verdicts(run outcome.Run) []string {
	out := make([]string, 0, len(run.Results))
	for _, r := range run.Results {
		out = append(out, fmt.Sprintf("%s | %s | %s", r.ID, r.Status, r.Reason))
	}
	return out
}

// determinismRuns is how many runs at the default concurrency each pack's
// verdicts are compared over: CONFORM_DETERMINISM_RUNS when set
// (make determinism sets 20, the proof, without -race), else 3.
// Under -race on a 2-core machine shared with other work a run of either
// pack takes about 0.8 s, so 20 of each would make this test about 35 s of
// every make test instead of 6; three catch an order that depends on
// timing most of the time, and the proof runs on demand.
func determinismRuns() int {
	if v := os.Getenv("CONFORM_DETERMINISM_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		Expect(err).NotTo(HaveOccurred(), "CONFORM_DETERMINISM_RUNS")
		Expect(n).To(BeNumerically(">", 0), "CONFORM_DETERMINISM_RUNS")
		return n
	}
	return 3
}

var _ = Describe("a run with scenarios at once", func() {
	for _, pack := range []string{spec.Source, spec.Authorization} {
		It("gives the "+pack+" pack the verdicts, order and exit code of a run one scenario at a time", func(ctx context.Context) {
			runWith := func(concurrency int) outcome.Run {
				t, stop, err := inprocess.Start(ctx)
				Expect(err).NotTo(HaveOccurred())
				defer stop()
				run, err := runner.Run(ctx, runner.Options{Target: t, Pack: pack, Concurrency: concurrency})
				Expect(err).NotTo(HaveOccurred())
				return run
			}
			// The reference host fails nothing; what its choices leave
			// unjudged (no confidential client, opaque tokens) may leave
			// the authorization pack incomplete.
			one := runWith(1)
			Expect(one.ExitCode()).To(BeElementOf(outcome.ExitPassed, outcome.ExitIncomplete))
			Expect(one.Tally().HarnessErrors).To(BeZero())
			Expect(one.Tally().Failed).To(Equal(one.Tally().Tolerated))
			for range determinismRuns() {
				many := runWith(runner.DefaultConcurrency)
				a, b := verdicts(one), verdicts(many)
				for i := range a {
					if i < len(b) && a[i] != b[i] {
						GinkgoWriter.Printf("DIFF %d\n  one:  %s\n  many: %s\n", i, a[i], b[i])
					}
				}
				Expect(b).To(Equal(a))
				Expect(many.ExitCode()).To(Equal(one.ExitCode()))
			}
		})
	}
})
