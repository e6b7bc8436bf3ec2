// Package outcome is the suite's model of what happened in a run: each
// scenario passed, failed, was not run (and why), or hit a harness error
// (PRODUCT.md section 5). Reports and exit codes are computed from it alone.
package outcome

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/conform-mcp/conform/harness/wire"
	"github.com/conform-mcp/conform/spec"
)

// Status is the outcome of one scenario.
type Status string

// The four outcomes. NotRun never counts as a pass.
const (
	Passed       Status = "passed"
	Failed       Status = "failed"
	NotRun       Status = "not run"
	HarnessError Status = "harness error"
)

// Departure is a step's finding that the host departs from a requirement. It
// is the only error a step returns that blames the host; every other error is
// a harness error.
type Departure struct {
	// Check says in a few words what was checked ("HTTP status", "401 body").
	Check string
	// Expected and Actual are shown side by side in every report.
	Expected string
	Actual   string
	// Exchanges are the HTTP exchanges that show the departure, masked.
	Exchanges []wire.Exchange
}

func (d *Departure) Error() string {
	return fmt.Sprintf("%s: expected %s, but actual is %s", d.Check, d.Expected, d.Actual)
}

// Departf is the usual way a step reports a departure.
func Departf(check string, expected, actual any, exchanges ...wire.Exchange) *Departure {
	return &Departure{Check: check, Expected: fmt.Sprint(expected), Actual: fmt.Sprint(actual), Exchanges: exchanges}
}

// Skip is returned (wrapped by godog's ErrSkip) when a scenario cannot run
// against this target; Reason names the missing profile key or capability.
type Skip struct{ Reason string }

func (s *Skip) Error() string { return "not run: " + s.Reason }

// Step is one step of a scenario as it ran.
type Step struct {
	Keyword string `json:"keyword"`
	Text    string `json:"text"`
	// Sent is Text with each placeholder replaced by the value the step used
	// ({tools.read} by the profile's tool name), credentials masked, so that
	// a report shows what was sent; empty when the text has no placeholder
	// or the step did not run.
	Sent string `json:"sent,omitempty"`
	Line int    `json:"line"`
	// Status is passed, failed, skipped, undefined, pending or ambiguous.
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// DocString is the step's attached text, if any.
	DocString string `json:"doc_string,omitempty"`
}

// Result is the outcome of one scenario.
type Result struct {
	// ID identifies the scenario across runs: "<feature file>: <scenario name>".
	ID string `json:"id"`
	// StableID identifies it across rewordings of its title: the first
	// requirement it checks and the slug of its @id: tag, plus its example
	// row's for an outline row ("AUTH-3/anonymous-method-off-allowlist-answers-401/ping").
	StableID string `json:"stable_id,omitempty"`
	// Pack is the specification pack the scenario belongs to (spec.Packs).
	Pack        string   `json:"pack"`
	Feature     string   `json:"feature"`
	FeatureFile string   `json:"feature_file"`
	Scenario    string   `json:"scenario"`
	Line        int      `json:"line"`
	Tags        []string `json:"tags"`
	// Requirements are the requirement IDs the scenario checks (its tags that name one).
	Requirements []spec.Requirement `json:"requirements"`
	Status       Status             `json:"status"`
	// Reason says why a scenario was not run or what went wrong in the harness.
	Reason string `json:"reason,omitempty"`
	// Departure is set when Status is Failed.
	Departure *Departure    `json:"departure,omitempty"`
	Steps     []Step        `json:"steps"`
	Duration  time.Duration `json:"duration"`
	// Expected is true when the scenario is listed in the expected-failures file.
	Expected bool `json:"expected_failure,omitempty"`
	// Observed says what the scenario saw of choices the source leaves open
	// (which device grant name the host took, how long a credential lived).
	Observed []string `json:"observed,omitempty"`
}

// Level is MUST when the scenario checks any MUST requirement, SHOULD when it
// checks only SHOULD ones.
func (r Result) Level() spec.Level {
	for _, q := range r.Requirements {
		if q.Level == spec.Must {
			return spec.Must
		}
	}
	if len(r.Requirements) == 0 {
		return spec.Must
	}
	return spec.Should
}

// Sections returns the source sections of the scenario's requirements, in order, without repeats.
func (r Result) Sections() []string {
	var out []string
	seen := map[string]bool{}
	for _, q := range r.Requirements {
		for _, s := range q.Sections() {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// Run is a whole run of the suite against one target.
type Run struct {
	Target string `json:"target"`
	// Pack is the specification pack that was run (spec.Packs).
	Pack     string        `json:"pack"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration"`
	Strict   bool          `json:"strict"`
	// Revision is the MCP revision the target took ("" when no reply showed
	// one): 2026-07-28, or the version an earlier server chose in initialize.
	Revision string `json:"mcp_revision,omitempty"`
	// Role is the side of the conversation judged: "" for a server at
	// Target, spec.ClientSide for the client Target names the command of.
	Role    spec.Role `json:"role,omitempty"`
	Results []Result  `json:"results"`
}

// Counts tallies results by status.
type Counts struct {
	Passed, Failed, NotRun, HarnessErrors int
	// Tolerated are failures that do not decide the exit code: SHOULD-level
	// without --strict, or listed as expected failures.
	Tolerated int
	// NotApplicable are the scenarios not run whose requirement does not
	// apply to the target (part of NotRun).
	NotApplicable int
	// Stale are scenarios listed as expected failures that passed.
	Stale int
}

// Tolerated says whether r is a failure that does not decide the exit code:
// SHOULD-level without --strict, or listed as an expected failure. Reports
// mark such failures one by one with the same rule Tally counts them by.
func (run Run) Tolerated(r Result) bool {
	return r.Status == Failed && (r.Expected || (!run.Strict && r.Level() == spec.Should))
}

// FailsRun says whether r alone makes the run exit 1: a failure that is not
// tolerated, a harness error, or an expected failure that now passes (a
// stale baseline). Reports mark results one by one with this rule, the one
// ExitCode applies to the run.
func (run Run) FailsRun(r Result) bool {
	switch r.Status {
	case Failed:
		return !run.Tolerated(r)
	case HarnessError:
		return true
	case Passed:
		return r.Expected
	}
	return false
}

// Tally counts the run's results, deciding which failures count.
func (run Run) Tally() Counts {
	var c Counts
	for _, r := range run.Results {
		switch r.Status {
		case Passed:
			c.Passed++
			if r.Expected {
				c.Stale++
			}
		case Failed:
			c.Failed++
			if run.Tolerated(r) {
				c.Tolerated++
			}
		case NotRun:
			c.NotRun++
			if r.Inapplicable() {
				c.NotApplicable++
			}
		case HarnessError:
			c.HarnessErrors++
		}
	}
	return c
}

// NotApplicable starts the reason of a scenario not run because its
// requirement does not apply to the target: an optional feature the target
// does not offer (a server that advertises no introspection_endpoint is
// bound by no introspection rule). Such a scenario is no gap in the run,
// unlike one that could not run for want of a capability.
const NotApplicable = "not applicable: "

// Inapplicable says whether r was not run because its requirement does not
// apply to the target (NotApplicable).
func (r Result) Inapplicable() bool {
	return r.Status == NotRun && strings.HasPrefix(r.Reason, NotApplicable)
}

// Exit codes of `conform run` (PRODUCT.md section 3).
const (
	ExitPassed     = 0
	ExitFailed     = 1
	ExitUsage      = 2
	ExitIncomplete = 3
)

// ExitCode decides the run's exit code: 1 if a counted failure, a harness
// error or a stale expected failure; 3 if nothing failed but something that
// applies was not run, or nothing ran at all; 0 only when every selected
// scenario that applies ran and passed.
func (run Run) ExitCode() int {
	for _, r := range run.Results {
		if run.FailsRun(r) {
			return ExitFailed
		}
	}
	c := run.Tally()
	if c.NotRun > c.NotApplicable || c.Passed+c.Failed == 0 {
		return ExitIncomplete
	}
	return ExitPassed
}

// Summary is the one-line account printed at the end of every report. The
// tolerated failures are said beside the failures they are part of, so that
// a run that exits 0 never reads as having failures that count.
func (c Counts) Summary() string {
	failed := fmt.Sprintf("%d failed", c.Failed)
	if c.Tolerated > 0 {
		failed += fmt.Sprintf(" (%d tolerated)", c.Tolerated)
	}
	parts := []string{fmt.Sprintf("%d passed", c.Passed), failed}
	switch {
	case c.NotApplicable > 0:
		parts = append(parts, fmt.Sprintf("%d not run (%d not applicable)", c.NotRun, c.NotApplicable))
	case c.NotRun > 0:
		parts = append(parts, fmt.Sprintf("%d not run", c.NotRun))
	}
	if c.HarnessErrors > 0 {
		parts = append(parts, fmt.Sprintf("%d harness errors", c.HarnessErrors))
	}
	if c.Stale > 0 {
		parts = append(parts, fmt.Sprintf("%d expected failures now pass", c.Stale))
	}
	return strings.Join(parts, ", ")
}

// Classify turns the error a scenario ended with into its status and reason.
// Only a Departure blames the host; a Skip means not run; anything else is the
// harness's own fault.
func Classify(err error) (Status, string, *Departure) {
	var d *Departure
	var s *Skip
	switch {
	case err == nil:
		return Passed, "", nil
	case errors.As(err, &s):
		return NotRun, s.Reason, nil
	case errors.As(err, &d):
		return Failed, "", d
	default:
		return HarnessError, err.Error(), nil
	}
}

// TargetStopped begins the reason of a harness error that is the target's,
// not the harness's: it stopped answering mid-run, so what follows is no
// verdict on it (steps' State.stopped).
const TargetStopped = "the target stopped answering"

// TargetLost says whether a harness error is one of a target that stopped
// answering, which reports say in its own words rather than as a fault of
// the harness.
func TargetLost(r Result) bool {
	return r.Status == HarnessError && strings.HasPrefix(r.Reason, TargetStopped)
}
