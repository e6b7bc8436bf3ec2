package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/conform-mcp/conform/harness/outcome"
)

// ANSI colours, written only when the caller says stdout is a terminal and
// NO_COLOR is unset, so that logs and files stay plain text.
const (
	ansiReset   = "\x1b[0m"
	ansiRed     = "\x1b[31m"
	ansiGreen   = "\x1b[32m"
	ansiYellow  = "\x1b[33m"
	ansiMagenta = "\x1b[35m"
	ansiDim     = "\x1b[2m"
)

// Pretty is the default report: scenarios grouped by feature, one line each,
// and under each one that did not simply pass the explanation a host author
// needs to act on it, with bodies cut. A scenario not run names its reason by
// number, and the reasons follow the scenarios once each, with the failed
// requirements. It ends with the exit meaning and then the summary line
// alone, which CI tooling reads.
type Pretty struct {
	// Color turns on ANSI colour.
	Color bool
}

// Write renders the run.
func (p Pretty) Write(w io.Writer, run outcome.Run) error {
	b := bufio.NewWriter(w)
	fmt.Fprintln(b, runLine(run))
	groups := notRunGroups(run)
	for _, f := range byFeature(run) {
		fmt.Fprintf(b, "\nFeature: %s  %s\n", f.Name, p.paint(ansiDim, f.File+" (pack "+f.Pack+")"))
		for _, r := range f.Results {
			mark, colour := prettyMark(run, r)
			line := fmt.Sprintf("  %s %s", p.paint(colour, mark), r.Scenario)
			if ids := requirementIDs(r); ids != "" {
				line += "  [" + ids + "]"
			}
			lines := explain(run, r, cutBodies)
			switch {
			case r.Status == outcome.NotRun:
				line += "  " + p.paint(colour, fmt.Sprintf("%s (reason %d, below)", verdict(run, r), reasonNumber(groups, r)))
				lines = observedOnly(r)
			case r.Status != outcome.Passed || stale(r):
				line += "  " + p.paint(colour, verdict(run, r))
			}
			fmt.Fprintln(b, line)
			for _, l := range lines {
				fmt.Fprintln(b, strings.TrimRight("      "+l, " "))
			}
		}
	}
	for _, l := range closing(run) {
		fmt.Fprintln(b, l)
	}
	fmt.Fprintln(b)
	fmt.Fprintln(b, p.paint(exitColour(run), exitMeaning(run)))
	fmt.Fprintln(b, run.Tally().Summary())
	return b.Flush()
}

func (p Pretty) paint(colour, s string) string {
	if !p.Color || s == "" {
		return s
	}
	return colour + s + ansiReset
}

// prettyMark picks the status mark and its colour. Tolerated failures get a
// mark of their own because they do not decide the exit code.
func prettyMark(run outcome.Run, r outcome.Result) (string, string) {
	switch {
	case stale(r):
		return "✗", ansiRed
	case r.Status == outcome.Passed:
		return "✓", ansiGreen
	case run.Tolerated(r):
		return "~", ansiYellow
	case r.Status == outcome.Failed:
		return "✗", ansiRed
	case r.Status == outcome.NotRun:
		return "-", ansiYellow
	}
	return "!", ansiMagenta
}

// exitColour colours the exit meaning by the exit code it explains.
func exitColour(run outcome.Run) string {
	switch run.ExitCode() {
	case outcome.ExitPassed:
		return ansiGreen
	case outcome.ExitIncomplete:
		return ansiYellow
	}
	return ansiRed
}
