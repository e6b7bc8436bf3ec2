package runner_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
	"github.com/conform-mcp/conform/harness/fakehost"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/spec"
)

// verdicts is a run's scenarios in the report's order, each with its
// outcome, reason and what its departure says: a report less its timings
// and the port the target got.
func verdicts(run outcome.Run) []string {
	out := make([]string, 0, len(run.Results))
	for _, r := range run.Results {
		line := fmt.Sprintf("%s | %s | %s", r.ID, r.Status, r.Reason)
		if d := r.Departure; d != nil {
			line += fmt.Sprintf(" | %s: %s / %s", d.Check, d.Expected, d.Actual)
		}
		// The codes and states an authorization server hands out differ
		// from run to run; the verdict does not.
		line = oneTime.ReplaceAllString(line, "$1=…")
		out = append(out, strings.ReplaceAll(line, run.Target, "{target}"))
	}
	return out
}

// oneTime matches the values of the parameters that differ every run.
var oneTime = regexp.MustCompile(`\b(code|state|iss)=[^&\s"]+`)

var _ = Describe("scenarios run at once", func() {
	at := func(n int) func(*target.Target, *runner.Options) {
		return func(_ *target.Target, o *runner.Options) { o.Concurrency = n }
	}
	DescribeTable("give the verdicts, order and exit code of one scenario at a time",
		func(opts fakehost.MCPOptions) {
			var tune []func(*target.Target, *runner.Options)
			if opts.Other {
				tune = append(tune, describeOther)
			}
			one := runFake(opts, tune...).run
			many := runFake(opts, append(tune, at(runner.DefaultConcurrency))...).run
			a, b := verdicts(one), verdicts(many)
			for i := range min(len(a), len(b)) {
				if a[i] != b[i] {
					GinkgoWriter.Printf("DIFF\n  one:  %s\n  many: %s\n", a[i], b[i])
				}
			}
			Expect(b).To(Equal(a))
			Expect(many.ExitCode()).To(Equal(one.ExitCode()))
		},
		Entry("a compliant host keeping sessions", fakehost.MCPOptions{Mode: fakehost.Sessions}),
		Entry("a compliant host making the other choices", fakehost.MCPOptions{Other: true}),
		Entry("a host whose 401 carries no challenge", fakehost.MCPOptions{Breaks: []fakehost.Break{fakehost.ChallengeMissing}}),
		Entry("a host that lets an anonymous batch through behind its first call", fakehost.MCPOptions{Breaks: []fakehost.Break{fakehost.BatchGatedByFirst}}),
	)

	DescribeTable("give the mcp-authorization pack the verdicts of one scenario at a time",
		func(breaks ...fakeauthz.Break) {
			runAt := func(n int) outcome.Run {
				h := fakeauthz.Start(breaks...)
				DeferCleanup(h.Close)
				run, err := runner.Run(context.Background(), runner.Options{Target: h.Target(), Pack: spec.Authorization, Concurrency: n})
				Expect(err).NotTo(HaveOccurred())
				// The authorization server's port differs too.
				for i := range run.Results {
					run.Results[i].Reason = strings.ReplaceAll(run.Results[i].Reason, h.AS.URL, "{issuer}")
				}
				return run
			}
			one, many := runAt(1), runAt(runner.DefaultConcurrency)
			a, b := verdicts(one), verdicts(many)
			for i := range min(len(a), len(b)) {
				if a[i] != b[i] {
					GinkgoWriter.Printf("DIFF\n  one:  %s\n  many: %s\n", a[i], b[i])
				}
			}
			Expect(b).To(Equal(a))
			Expect(many.ExitCode()).To(Equal(one.ExitCode()))
		},
		Entry("a compliant server"),
		Entry("one that serves a token it never issued", fakeauthz.UnknownAccepted),
		Entry("one whose authorization server redeems a code twice", fakeauthz.CodeReusable),
	)
})
