// Package report renders a finished run in every format the suite offers:
// pretty and progress for a person at a terminal, JUnit XML and Cucumber JSON
// for CI systems, and one self-contained HTML page (PRODUCT.md sections 3
// and 5). Every format is computed from the outcome.Run alone, and nothing
// is read from a map without sorting, so one run always renders the same bytes.
package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/spec"
)

// Writer renders a finished run.
type Writer interface {
	Write(w io.Writer, run outcome.Run) error
}

// Live receives progress while a run goes on, so that a person watching a
// long wait (the five-minute window in real time) sees that the suite is alive.
type Live interface {
	ScenarioStarted(r outcome.Result)
	ScenarioFinished(r outcome.Result)
	Waiting(what string, d time.Duration)
}

// harnessFault is said wherever a harness error is shown: PRODUCT.md section 5
// forbids blaming the host for the suite's own failures.
const harnessFault = "this is a fault in the harness, not a departure by the host"

// feature is one feature file's results, in run order.
type feature struct {
	Name string
	File string
	// Pack is the specification pack the feature belongs to.
	Pack    string
	Results []outcome.Result
	// Index holds each result's index in the run's results.
	Index []int
}

// byFeature groups the results by feature file, features in the order of
// their sections (sortFeatures) and results in run order, so that the
// grouping needs no map iteration.
func byFeature(run outcome.Run) []feature {
	var out []feature
	index := map[string]int{}
	for n, r := range run.Results {
		i, ok := index[r.FeatureFile]
		if !ok {
			i = len(out)
			index[r.FeatureFile] = i
			out = append(out, feature{Name: r.Feature, File: r.FeatureFile, Pack: r.Pack})
		}
		out[i].Results = append(out[i].Results, r)
		out[i].Index = append(out[i].Index, n)
	}
	sortFeatures(out)
	return out
}

// stale says whether r passed although it is listed as an expected failure;
// the run then exits 1 because the list no longer tells the truth.
func stale(r outcome.Result) bool {
	return r.Status == outcome.Passed && r.Expected
}

// verdict names the result's outcome in words. Words in capitals are the
// outcomes that make the run exit 1, so they read the same without colour.
func verdict(run outcome.Run, r outcome.Result) string {
	switch {
	case stale(r):
		return "PASSED, but listed as an expected failure"
	case r.Status == outcome.Passed:
		return "passed"
	case r.Status == outcome.Failed && r.Expected:
		return "failed (expected failure)"
	case run.Tolerated(r):
		return "failed (tolerated: SHOULD)"
	case r.Status == outcome.Failed:
		return "FAILED"
	case r.Status == outcome.NotRun:
		return "not run"
	case r.Status == outcome.HarnessError:
		return "HARNESS ERROR"
	}
	return string(r.Status)
}

// requirementIDs lists the scenario's requirement IDs, space-separated.
func requirementIDs(r outcome.Result) string {
	ids := make([]string, len(r.Requirements))
	for i, q := range r.Requirements {
		ids[i] = q.ID
	}
	return strings.Join(ids, " ")
}

// failedStep returns the step that decided a failure or harness error, if
// the runner recorded one.
func failedStep(r outcome.Result) (outcome.Step, bool) {
	for _, s := range r.Steps {
		switch s.Status {
		case "failed", "undefined", "pending", "ambiguous":
			return s, true
		}
	}
	return outcome.Step{}, false
}

// stepLine renders a step as it ran: the feature file's words with the
// values it sent in place of its placeholders, and the line to find it by.
func stepLine(s outcome.Step) string {
	return fmt.Sprintf("%s %s (line %d)", strings.TrimSpace(s.Keyword), stepText(s), s.Line)
}

// stepText is what the step sent when it ran, else its text as written.
func stepText(s outcome.Step) string {
	if s.Sent != "" {
		return s.Sent
	}
	return s.Text
}

// explain says what a reader needs to know about a result that did not
// simply pass: for a failure the requirements with their sentences, expected
// and actual, and the HTTP exchanges (PRODUCT.md section 5). It returns one
// line per entry without indentation; the text formats indent it as they need,
// and say with b whether bodies are cut. A plain pass needs no explanation
// and gets only what it observed of the choices the source leaves open.
func explain(run outcome.Run, r outcome.Result, b bodies) []string {
	return append(because(run, r, b), observedOnly(r)...)
}

// observedOnly is what explain says of r beyond its outcome: for a scenario
// not run, whose reason the text formats give once for all that share it.
func observedOnly(r outcome.Result) []string {
	var lines []string
	for _, o := range r.Observed {
		lines = append(lines, "observed: "+o)
	}
	return lines
}

// because is explain without the observations.
func because(run outcome.Run, r outcome.Result, b bodies) []string {
	switch {
	case stale(r):
		return []string{"listed as an expected failure, but it passed: remove it from the expected-failures file"}
	case r.Status == outcome.NotRun:
		return []string{"not run: " + r.Reason}
	case r.Status == outcome.HarnessError:
		lines := []string{"harness error: " + harnessFault + ".", "reason: " + r.Reason}
		if outcome.TargetLost(r) {
			// The target's doing, not the harness's: said once, as it is.
			lines = []string{"harness error: " + r.Reason}
		}
		if s, ok := failedStep(r); ok {
			lines = append(lines, "at step: "+stepLine(s))
		}
		return lines
	case r.Status != outcome.Failed:
		return nil
	}
	var lines []string
	for _, q := range r.Requirements {
		lines = append(lines, fmt.Sprintf("%s, section %s (%s): %q", q.ID, q.Section, q.Level, q.Text))
	}
	switch {
	case r.Expected:
		lines = append(lines, "tolerated: listed as an expected failure")
	case run.Tolerated(r):
		lines = append(lines, "tolerated: a SHOULD requirement decides the exit code only with --strict")
	}
	if s, ok := failedStep(r); ok {
		lines = append(lines, "at step: "+stepLine(s))
	}
	d := r.Departure
	if d == nil {
		// A failure always carries its departure; say so rather than show nothing.
		return append(lines, "no departure was recorded: "+r.Reason)
	}
	lines = append(lines,
		"check:    "+d.Check,
		"expected: "+d.Expected,
		"actual:   "+d.Actual)
	for i, ex := range d.Exchanges {
		if b == cutBodies {
			ex = cutExchange(ex)
		}
		lines = append(lines, fmt.Sprintf("exchange %d of %d:", i+1, len(d.Exchanges)))
		for _, l := range strings.Split(strings.TrimRight(ex.String(), "\n"), "\n") {
			lines = append(lines, "  "+l)
		}
	}
	return lines
}

// headline is the short form of a failure, for the one-line message JUnit
// and similar consumers show in a list.
func headline(run outcome.Run, r outcome.Result) string {
	var b strings.Builder
	switch {
	case run.Tolerated(r) && r.Expected:
		b.WriteString("tolerated (listed as an expected failure): ")
	case run.Tolerated(r):
		b.WriteString("tolerated (SHOULD, counted only with --strict): ")
	}
	if ids := requirementIDs(r); ids != "" {
		b.WriteString(ids + ": ")
	}
	if d := r.Departure; d != nil {
		fmt.Fprintf(&b, "%s: expected %s, actual %s", d.Check, d.Expected, d.Actual)
	} else {
		b.WriteString("no departure was recorded: " + r.Reason)
	}
	return b.String()
}

// judged names what the run judged: the host, or the client.
func judged(run outcome.Run) string {
	if run.Role == spec.ClientSide {
		return "client"
	}
	return "host"
}

// exitMeaning says which exit code the run ends with and why, in the terms
// of PRODUCT.md section 3. A run whose only failures are tolerated says that
// none counts, and why, rather than that everything passed.
func exitMeaning(run outcome.Run) string {
	c := run.Tally()
	code := run.ExitCode()
	switch code {
	case outcome.ExitPassed:
		if c.Tolerated > 0 {
			return "exit 0: every selected scenario ran, and no failure counts against the " + judged(run) + " " + toleratedWhy(run)
		}
		if c.NotApplicable > 0 {
			return fmt.Sprintf("exit 0: every selected scenario that applies ran and passed (%s not applicable)", plural(c.NotApplicable, "scenario", "scenarios"))
		}
		return "exit 0: every selected scenario ran and passed"
	case outcome.ExitIncomplete:
		if c.Passed+c.Failed == 0 {
			return "exit 3: incomplete, no scenario ran"
		}
		notRun := plural(c.NotRun-c.NotApplicable, "scenario", "scenarios")
		if c.Tolerated > 0 {
			return fmt.Sprintf("exit 3: incomplete, %s could not run, and no failure counts against the %s %s", notRun, judged(run), toleratedWhy(run))
		}
		return fmt.Sprintf("exit 3: incomplete, nothing failed but %s could not run", notRun)
	}
	var why []string
	if n := c.Failed - c.Tolerated; n > 0 {
		why = append(why, plural(n, "failure counts", "failures count")+" against the "+judged(run))
	}
	if c.HarnessErrors > 0 {
		why = append(why, plural(c.HarnessErrors, "harness error", "harness errors"))
	}
	if c.Stale > 0 {
		why = append(why, plural(c.Stale, "expected failure now passes", "expected failures now pass"))
	}
	return fmt.Sprintf("exit %d: failed, %s", code, strings.Join(why, "; "))
}

// toleratedWhy says how many failures are tolerated and why: SHOULD-level
// without --strict, or listed as expected failures.
func toleratedWhy(run outcome.Run) string {
	var should, expected int
	for _, r := range run.Results {
		switch {
		case !run.Tolerated(r):
		case r.Expected:
			expected++
		default:
			should++
		}
	}
	var why []string
	if should > 0 {
		why = append(why, plural(should, "SHOULD failure, which counts", "SHOULD failures, which count")+" only with --strict")
	}
	if expected > 0 {
		why = append(why, plural(expected, "listed expected failure", "listed expected failures"))
	}
	return "(tolerated: " + strings.Join(why, "; ") + ")"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// runLine introduces a text report: what was checked, when, and how.
func runLine(run outcome.Run) string {
	mode := ""
	if run.Strict {
		mode = ", strict"
	}
	if run.Role == spec.ClientSide {
		return fmt.Sprintf("conform run of the client half of pack %s against the client %s, started %s, took %s%s",
			run.Pack, run.Target, stamp(run.Started), span(run.Duration), mode)
	}
	return fmt.Sprintf("conform run of pack %s against %s (%s), started %s, took %s%s",
		run.Pack, run.Target, revision(run), stamp(run.Started), span(run.Duration), mode)
}

// revision names the MCP revision the target took.
func revision(run outcome.Run) string {
	if run.Revision == "" {
		return "no reply showed its MCP revision"
	}
	return "MCP " + run.Revision
}

// stamp and span format the run's own time values the same way everywhere.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

func span(d time.Duration) string { return d.Round(time.Millisecond).String() }
