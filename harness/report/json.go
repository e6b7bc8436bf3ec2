package report

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/wire"
)

// JSON renders the run as one JSON document for programs: what was run and
// how it ended, then one object per scenario with its pack, the requirements
// it checks and their levels, its outcome and why, and every exchange in full
// (masked as in every report). Unlike pretty and progress, nothing is cut.
//
// Outcomes are written in snake case ("not_run"), and times in milliseconds,
// so that a consumer needs no parsing beyond JSON.
type JSON struct{}

type jsonRun struct {
	Target      string         `json:"target"`
	Pack        string         `json:"pack"`
	MCPRevision string         `json:"mcp_revision"`
	Started     string         `json:"started"`
	DurationMS  int64          `json:"duration_ms"`
	Strict      bool           `json:"strict"`
	ExitCode    int            `json:"exit_code"`
	Counts      jsonCounts     `json:"counts"`
	Scenarios   []jsonScenario `json:"scenarios"`
}

type jsonCounts struct {
	Passed        int `json:"passed"`
	Failed        int `json:"failed"`
	NotRun        int `json:"not_run"`
	HarnessErrors int `json:"harness_errors"`
	Tolerated     int `json:"tolerated"`
	Stale         int `json:"expected_failures_now_passing"`
}

type jsonScenario struct {
	ID string `json:"id"`
	// StableID is the ID a reworded title leaves alone, for baselines.
	StableID     string            `json:"stable_id"`
	Pack         string            `json:"pack"`
	Feature      string            `json:"feature"`
	FeatureFile  string            `json:"feature_file"`
	Line         int               `json:"line"`
	Scenario     string            `json:"scenario"`
	Tags         []string          `json:"tags"`
	Requirements []jsonRequirement `json:"requirements"`
	Outcome      string            `json:"outcome"`
	// FailsRun says whether the outcome alone makes the run exit 1: a
	// failure that is not tolerated, a harness error, or an expected failure
	// that now passes. A scenario not run makes the run incomplete (exit 3)
	// only when nothing fails it.
	FailsRun        bool            `json:"fails_run"`
	ExpectedFailure bool            `json:"expected_failure"`
	Reason          string          `json:"reason,omitempty"`
	Departure       *jsonDeparture  `json:"departure,omitempty"`
	Exchanges       []wire.Exchange `json:"exchanges"`
	Observed        []string        `json:"observed"`
	Steps           []jsonStep      `json:"steps"`
	DurationMS      int64           `json:"duration_ms"`
}

type jsonRequirement struct {
	ID      string `json:"id"`
	Level   string `json:"level"`
	Section string `json:"section"`
	Text    string `json:"text"`
}

type jsonDeparture struct {
	Check    string `json:"check"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
}

type jsonStep struct {
	Keyword string `json:"keyword"`
	Text    string `json:"text"`
	Sent    string `json:"sent,omitempty"`
	Line    int    `json:"line"`
	Status  string `json:"status"`
	Error   string `json:"error,omitempty"`
}

// Write renders the run.
func (JSON) Write(w io.Writer, run outcome.Run) error {
	c := run.Tally()
	doc := jsonRun{
		Target:      run.Target,
		Pack:        run.Pack,
		MCPRevision: run.Revision,
		Started:     run.Started.UTC().Format(time.RFC3339),
		DurationMS:  run.Duration.Milliseconds(),
		Strict:      run.Strict,
		ExitCode:    run.ExitCode(),
		Counts: jsonCounts{Passed: c.Passed, Failed: c.Failed, NotRun: c.NotRun,
			HarnessErrors: c.HarnessErrors, Tolerated: c.Tolerated, Stale: c.Stale},
		Scenarios: []jsonScenario{},
	}
	for _, r := range run.Results {
		doc.Scenarios = append(doc.Scenarios, newJSONScenario(run, r))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Bodies are full of < and >; JSON needs no escaping of them.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

func newJSONScenario(run outcome.Run, r outcome.Result) jsonScenario {
	s := jsonScenario{
		ID:              r.ID,
		StableID:        r.StableID,
		Pack:            r.Pack,
		Feature:         r.Feature,
		FeatureFile:     r.FeatureFile,
		Line:            r.Line,
		Scenario:        r.Scenario,
		Tags:            append([]string{}, r.Tags...),
		Requirements:    []jsonRequirement{},
		Outcome:         jsonOutcome(r.Status),
		FailsRun:        run.FailsRun(r),
		ExpectedFailure: r.Expected,
		Reason:          r.Reason,
		Exchanges:       []wire.Exchange{},
		Observed:        append([]string{}, r.Observed...),
		Steps:           []jsonStep{},
		DurationMS:      r.Duration.Milliseconds(),
	}
	for _, q := range r.Requirements {
		s.Requirements = append(s.Requirements, jsonRequirement{ID: q.ID, Level: string(q.Level), Section: q.Section, Text: q.Text})
	}
	if d := r.Departure; d != nil {
		s.Departure = &jsonDeparture{Check: d.Check, Expected: d.Expected, Actual: d.Actual}
		s.Exchanges = append(s.Exchanges, d.Exchanges...)
	}
	for _, st := range r.Steps {
		s.Steps = append(s.Steps, jsonStep{Keyword: st.Keyword, Text: st.Text, Sent: st.Sent, Line: st.Line, Status: st.Status, Error: st.Error})
	}
	return s
}

// jsonOutcome spells an outcome as an identifier.
func jsonOutcome(s outcome.Status) string {
	switch s {
	case outcome.NotRun:
		return "not_run"
	case outcome.HarnessError:
		return "harness_error"
	}
	return string(s)
}
