package report

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/conform-mcp/conform/harness/outcome"
)

// Cucumber renders the run as Cucumber JSON, the array-of-features shape
// that Cucumber reporters and CI plugins read.
//
// Two things the format expects are not in the outcome model, and are
// filled in as follows. The explanation of an outcome goes to the step that
// decided it (its error_message); when no step did, to a hook entry, which is
// where the format puts outcomes decided outside steps. And time is measured
// per scenario, not per step, so the scenario's whole duration is given to
// its first entry, which keeps the sums reporters show per scenario and per
// feature true.
type Cucumber struct{}

type cucumberFeature struct {
	URI     string `json:"uri"`
	ID      string `json:"id"`
	Keyword string `json:"keyword"`
	Name    string `json:"name"`
	// Tags carry the feature's pack as @pack-<name>.
	Tags     []cucumberTag     `json:"tags"`
	Elements []cucumberElement `json:"elements"`
}

type cucumberElement struct {
	ID      string         `json:"id"`
	Keyword string         `json:"keyword"`
	Name    string         `json:"name"`
	Line    int            `json:"line"`
	Type    string         `json:"type"`
	Tags    []cucumberTag  `json:"tags"`
	Before  []cucumberHook `json:"before,omitempty"`
	Steps   []cucumberStep `json:"steps"`
	After   []cucumberHook `json:"after,omitempty"`
}

type cucumberTag struct {
	Name string `json:"name"`
}

type cucumberStep struct {
	Keyword   string          `json:"keyword"`
	Name      string          `json:"name"`
	Line      int             `json:"line"`
	DocString *cucumberDoc    `json:"doc_string,omitempty"`
	Result    cucumberOutcome `json:"result"`
}

type cucumberDoc struct {
	Value string `json:"value"`
}

type cucumberHook struct {
	Result cucumberOutcome `json:"result"`
}

type cucumberOutcome struct {
	Status       string `json:"status"`
	ErrorMessage string `json:"error_message,omitempty"`
	// Duration is in nanoseconds, as the format wants.
	Duration int64 `json:"duration"`
}

// Write renders the run.
func (Cucumber) Write(w io.Writer, run outcome.Run) error {
	features := []cucumberFeature{}
	for _, f := range byFeature(run) {
		cf := cucumberFeature{URI: f.File, ID: slug(f.Name), Keyword: "Feature", Name: f.Name,
			Tags: []cucumberTag{{Name: "@pack-" + f.Pack}}, Elements: []cucumberElement{}}
		for _, r := range f.Results {
			cf.Elements = append(cf.Elements, cucumberScenario(run, r, cf.ID))
		}
		features = append(features, cf)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Bodies are full of < and >; JSON needs no escaping of them.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(features); err != nil {
		return fmt.Errorf("write cucumber: %w", err)
	}
	return nil
}

func cucumberScenario(run outcome.Run, r outcome.Result, featureID string) cucumberElement {
	e := cucumberElement{
		ID:      featureID + ";" + slug(r.Scenario),
		Keyword: "Scenario",
		Name:    r.Scenario,
		Line:    r.Line,
		Type:    "scenario",
		Tags:    []cucumberTag{},
		Steps:   []cucumberStep{},
	}
	for _, t := range r.Tags {
		if !strings.HasPrefix(t, "@") {
			t = "@" + t
		}
		e.Tags = append(e.Tags, cucumberTag{Name: t})
	}
	decisive := decisiveStep(r)
	message := strings.Join(explain(run, r, wholeBodies), "\n")
	for i, s := range r.Steps {
		cs := cucumberStep{
			Keyword: strings.TrimSpace(s.Keyword) + " ",
			Name:    s.Text,
			Line:    s.Line,
			Result:  cucumberOutcome{Status: s.Status, ErrorMessage: s.Error},
		}
		if i == decisive {
			cs.Result.ErrorMessage = message
		}
		if s.DocString != "" {
			cs.DocString = &cucumberDoc{Value: s.DocString}
		}
		e.Steps = append(e.Steps, cs)
	}
	if decisive < 0 && message != "" {
		hook := cucumberHook{Result: cucumberOutcome{Status: "failed", ErrorMessage: message}}
		if r.Status == outcome.NotRun {
			hook.Result.Status = "skipped"
			e.Before = []cucumberHook{hook}
		} else {
			e.After = []cucumberHook{hook}
		}
	}
	switch {
	case len(e.Before) > 0:
		e.Before[0].Result.Duration = r.Duration.Nanoseconds()
	case len(e.Steps) > 0:
		e.Steps[0].Result.Duration = r.Duration.Nanoseconds()
	case len(e.After) > 0:
		e.After[0].Result.Duration = r.Duration.Nanoseconds()
	}
	return e
}

// decisiveStep is the index of the step whose status matches the scenario's
// outcome (the first failing step of a failure or harness error, the first
// skipped step of a scenario not run), or -1 if none does. A stale expected
// failure has no such step: all its steps passed.
func decisiveStep(r outcome.Result) int {
	want := map[outcome.Status][]string{
		outcome.Failed:       {"failed"},
		outcome.HarnessError: {"failed", "undefined", "pending", "ambiguous"},
		outcome.NotRun:       {"skipped"},
	}[r.Status]
	for i, s := range r.Steps {
		for _, st := range want {
			if s.Status == st {
				return i
			}
		}
	}
	return -1
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slug makes the ids Cucumber uses: lower case, words joined by hyphens.
func slug(s string) string {
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}
