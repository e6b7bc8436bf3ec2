package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/conform-mcp/conform/harness/outcome"
)

// progressWidth wraps the marks so that a long run stays readable in an
// 80-column terminal or a CI log.
const progressWidth = 60

// Progress prints one character per scenario as it finishes (. pass, F fail,
// ~ tolerated failure, - not run, E harness error), a note before each long wait, and at the end
// the details of everything that failed or hit a harness error (bodies cut;
// with Observed, what each scenario observed too),
// the failed requirements, the reasons scenarios were not run with their
// counts, and the summary line.
//
// Beside pretty on standard output it prints the marks alone: pretty then
// gives the details once, on lines of its own (see Parse).
type Progress struct {
	// Observed adds what each scenario observed of the choices the source
	// leaves open (conform run -v): a run that passes every scenario would
	// otherwise end in a list of notes that reads like one of problems.
	Observed bool
	// Strict is the run's --strict, so that a mark shown while the run goes
	// on tells a tolerated failure from one that fails the run.
	Strict bool

	out   io.Writer
	color bool
	// marksOnly leaves the details to pretty.
	marksOnly bool

	mu    sync.Mutex
	shown int // marks already printed live
	col   int // marks on the current line
}

// NewProgress returns a Progress that prints live marks to out.
func NewProgress(out io.Writer, color bool) *Progress {
	return &Progress{out: out, color: color}
}

// ScenarioStarted does nothing: a mark means a finished scenario.
func (p *Progress) ScenarioStarted(outcome.Result) {}

// ScenarioFinished prints the scenario's mark.
func (p *Progress) ScenarioFinished(r outcome.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mark(p.out, r, outcome.Run{Strict: p.Strict}.Tolerated(r))
	p.shown++
}

// Waiting prints on a line of its own what the run waits for and how long,
// so that minutes without a mark do not look like a hang.
func (p *Progress) Waiting(what string, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.col > 0 {
		fmt.Fprintln(p.out)
		p.col = 0
	}
	fmt.Fprintf(p.out, "waiting %s: %s\n", span(d), what)
}

// mark writes one result's character, wrapping the line; p.mu is held.
func (p *Progress) mark(w io.Writer, r outcome.Result, tolerated bool) {
	c, colour := "E", ansiMagenta
	switch {
	case r.Status == outcome.Passed:
		c, colour = ".", ansiGreen
	case tolerated:
		c, colour = "~", ansiYellow
	case r.Status == outcome.Failed:
		c, colour = "F", ansiRed
	case r.Status == outcome.NotRun:
		c, colour = "-", ansiYellow
	}
	if p.color {
		c = colour + c + ansiReset
	}
	if p.col == progressWidth {
		fmt.Fprintln(w)
		p.col = 0
	}
	fmt.Fprint(w, c)
	p.col++
}

// Write ends the report. The marks are printed here only if none were shown
// live, so that a report rendered after the fact (or to a file) is complete.
func (p *Progress) Write(w io.Writer, run outcome.Run) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := bufio.NewWriter(w)
	if p.shown == 0 {
		for _, r := range run.Results {
			p.mark(b, r, run.Tolerated(r))
		}
	}
	if p.col > 0 {
		fmt.Fprintln(b)
		p.col = 0
	}
	if p.marksOnly {
		return b.Flush()
	}
	n := 0
	for _, r := range run.Results {
		lines := because(run, r, cutBodies)
		if p.Observed {
			lines = explain(run, r, cutBodies)
		}
		if len(lines) == 0 || r.Status == outcome.NotRun {
			continue
		}
		n++
		fmt.Fprintf(b, "\n%d) %s: %s", n, r.Feature, r.Scenario)
		if ids := requirementIDs(r); ids != "" {
			fmt.Fprintf(b, "  [%s]", ids)
		}
		fmt.Fprintf(b, "  %s\n   %s:%d (pack %s)\n", verdict(run, r), r.FeatureFile, r.Line, r.Pack)
		for _, l := range lines {
			fmt.Fprintln(b, strings.TrimRight("   "+l, " "))
		}
	}
	for _, l := range closing(run) {
		fmt.Fprintln(b, l)
	}
	fmt.Fprintln(b)
	fmt.Fprintln(b, exitMeaning(run))
	fmt.Fprintln(b, run.Tally().Summary())
	return b.Flush()
}
