package diagnose

import (
	"fmt"
	"io"
	"strings"
)

// maxShownResult bounds how much of a tool's result text the report shows.
const maxShownResult = 600

// GateName renders a Verdict's Gate: "gate 1 or 2", "gate 3", "gate 4", or
// "no gate".
func GateName(gate int) string {
	switch gate {
	case GateOneOrTwo:
		return "gate 1 or 2"
	case GatePathPolicy, GateProvider:
		return fmt.Sprintf("gate %d", gate)
	}
	return "no gate"
}

// Write renders the report for a person: each observation under the step of
// source section 7.5 it belongs to, then the verdict and its remedy.
// Credentials were masked when the report was made.
func (r Report) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Diagnosis of %s\n(following the diagnosis order of source section 7.5)\n\n", r.Subject)
	for _, o := range r.Observations {
		fmt.Fprintf(&b, "  step %d  %s\n", o.Step, o.What)
	}
	v := r.Verdict
	b.WriteString("\n")
	switch {
	case v.Step == 0:
		b.WriteString("Verdict: the call succeeds\n")
	case v.Uncovered:
		fmt.Fprintf(&b, "Verdict: stopped at step %d without naming a gate (the source's failure shapes do not cover this)\n", v.Step)
	default:
		fmt.Fprintf(&b, "Verdict: step %d, %s\n", v.Step, GateName(v.Gate))
	}
	fmt.Fprintf(&b, "  %s\n", v.Summary)
	if v.Remedy != "" {
		fmt.Fprintf(&b, "Remedy: %s\n", v.Remedy)
	}
	if v.Result != "" {
		b.WriteString("Result:\n")
		for line := range strings.SplitSeq(shorten(v.Result, maxShownResult), "\n") {
			fmt.Fprintf(&b, "  %s\n", line)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// shorten cuts s to about n bytes and says how much was left out.
func shorten(s string, n int) string {
	head, left := cut(strings.TrimSpace(s), n)
	if left == 0 {
		return head
	}
	return fmt.Sprintf("%s… (%d more bytes)", head, left)
}
