package runner

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"
	"github.com/cucumber/godog/formatters"
	messages "github.com/cucumber/messages/go/v21"

	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/steps"
	"github.com/conform-mcp/conform/spec"
)

// Observer hears about scenarios as they run (a live progress display).
type Observer interface {
	ScenarioStarted(r outcome.Result)
	ScenarioFinished(r outcome.Result)
	Waiting(what string, d time.Duration)
}

// collector is a godog formatter that builds the outcome model instead of
// printing: every report is rendered from that model afterwards.
type collector struct {
	mu       sync.Mutex
	spec     *spec.Spec
	notes    *steps.Notes
	observer Observer
	expected map[string]bool
	now      func() time.Time
	// only, when set, is the one scenario ID recorded (--scenario).
	only string

	nodes map[string]node   // Gherkin AST node id → keyword, text, line
	names map[string]string // feature uri → feature name
	// running are the scenarios begun and not yet finished, by pickle ID:
	// scenarios that run at once report their steps interleaved.
	running map[string]*inflight
	// pass is the pass of the run the next scenarios belong to; results
	// are ordered by pass, then as the features list them.
	pass    int
	results []ordered
}

// inflight is a scenario begun and not yet finished.
type inflight struct {
	r       outcome.Result
	err     error
	bad     string // an undefined, pending or ambiguous step
	started time.Time
	// left is how many of its steps have not reported yet.
	left int
}

// ordered is a finished scenario and where it stands in the run.
type ordered struct {
	result outcome.Result
	pass   int
}

type node struct {
	keyword string
	line    int
	// row is the first cell of an outline's example row, for its stable ID.
	row string
}

var _ formatters.Formatter = (*collector)(nil)

func (c *collector) TestRunStarted() {}

// Feature indexes the document so steps and scenarios can be given their
// keywords and line numbers.
func (c *collector) Feature(doc *messages.GherkinDocument, uri string, _ []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if doc.Feature == nil {
		return
	}
	c.names[uri] = doc.Feature.Name
	var walk func(children []*messages.FeatureChild)
	addSteps := func(ss []*messages.Step) {
		for _, s := range ss {
			c.nodes[s.Id] = node{keyword: strings.TrimSpace(s.Keyword), line: int(s.Location.Line)}
		}
	}
	walk = func(children []*messages.FeatureChild) {
		for _, ch := range children {
			switch {
			case ch.Background != nil:
				addSteps(ch.Background.Steps)
			case ch.Scenario != nil:
				c.nodes[ch.Scenario.Id] = node{keyword: ch.Scenario.Keyword, line: int(ch.Scenario.Location.Line)}
				addSteps(ch.Scenario.Steps)
				for _, ex := range ch.Scenario.Examples {
					for _, row := range ex.TableBody {
						n := node{keyword: "Example", line: int(row.Location.Line)}
						if len(row.Cells) > 0 {
							n.row = row.Cells[0].Value
						}
						c.nodes[row.Id] = n
					}
				}
			case ch.Rule != nil:
				rc := make([]*messages.FeatureChild, 0, len(ch.Rule.Children))
				for _, r := range ch.Rule.Children {
					rc = append(rc, &messages.FeatureChild{Background: r.Background, Scenario: r.Scenario})
				}
				walk(rc)
			}
		}
	}
	walk(doc.Feature.Children)
}

// Pickle starts a scenario (an outline's example row is a scenario of its own).
func (c *collector) Pickle(p *messages.Pickle) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.only != "" && p.Uri+": "+p.Name != c.only {
		return
	}
	r := outcome.Result{
		ID:          p.Uri + ": " + p.Name,
		Pack:        c.spec.Pack,
		Feature:     c.names[p.Uri],
		FeatureFile: p.Uri,
		Scenario:    p.Name,
	}
	// The last AST node is the example row for outlines, the scenario otherwise.
	var row string
	if n := len(p.AstNodeIds); n > 0 {
		r.Line = c.nodes[p.AstNodeIds[n-1]].line
		row = c.nodes[p.AstNodeIds[n-1]].row
	}
	for _, t := range p.Tags {
		r.Tags = append(r.Tags, t.Name)
		if q, ok := c.spec.Get(strings.TrimPrefix(t.Name, "@")); ok {
			r.Requirements = append(r.Requirements, q)
		}
	}
	r.StableID = stableID(c.spec, r.Tags, row)
	r.Expected = c.expected[r.ID] || (r.StableID != "" && c.expected[r.StableID])
	f := &inflight{r: r, started: c.now(), left: len(p.Steps)}
	c.running[p.Id] = f
	if c.observer != nil {
		c.observer.ScenarioStarted(r)
	}
	if f.left == 0 {
		c.finish(p.Id)
	}
}

func (c *collector) step(p *messages.Pickle, st *messages.PickleStep, status string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.running[p.Id]
	if !ok {
		return
	}
	defer func() {
		if f.left--; f.left <= 0 {
			c.finish(p.Id)
		}
	}()
	s := outcome.Step{Text: st.Text, Status: status}
	if c.notes != nil {
		s.Sent, _ = c.notes.Sent(st.Id)
	}
	if n := len(st.AstNodeIds); n > 0 {
		nd := c.nodes[st.AstNodeIds[0]]
		s.Keyword, s.Line = nd.keyword, nd.line
	}
	if st.Argument != nil && st.Argument.DocString != nil {
		s.DocString = st.Argument.DocString.Content
	}
	if err != nil {
		s.Error = err.Error()
	}
	f.r.Steps = append(f.r.Steps, s)
	switch status {
	case "failed":
		if f.err == nil {
			f.err = err
		}
	case "undefined", "pending", "ambiguous":
		if f.bad == "" {
			f.bad = fmt.Sprintf("step %s: %q", status, st.Text)
		}
	}
}

func (c *collector) Defined(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {}

func (c *collector) Passed(p *messages.Pickle, st *messages.PickleStep, _ *formatters.StepDefinition) {
	c.step(p, st, "passed", nil)
}

func (c *collector) Failed(p *messages.Pickle, st *messages.PickleStep, _ *formatters.StepDefinition, err error) {
	c.step(p, st, "failed", err)
}

func (c *collector) Skipped(p *messages.Pickle, st *messages.PickleStep, _ *formatters.StepDefinition) {
	c.step(p, st, "skipped", nil)
}

func (c *collector) Undefined(p *messages.Pickle, st *messages.PickleStep, _ *formatters.StepDefinition) {
	c.step(p, st, "undefined", nil)
}

func (c *collector) Pending(p *messages.Pickle, st *messages.PickleStep, _ *formatters.StepDefinition) {
	c.step(p, st, "pending", nil)
}

func (c *collector) Ambiguous(p *messages.Pickle, st *messages.PickleStep, _ *formatters.StepDefinition, err error) {
	c.step(p, st, "ambiguous", err)
}

func (c *collector) Summary() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range slices.Sorted(maps.Keys(c.running)) {
		c.finish(id)
	}
}

// finish decides a scenario's outcome. Strict: an undefined, pending or
// ambiguous step is the suite's own fault and fails the run as a harness
// error; only a Departure blames the host.
func (c *collector) finish(pickleID string) {
	f, ok := c.running[pickleID]
	if !ok {
		return
	}
	delete(c.running, pickleID)
	r := &f.r
	r.Duration = c.now().Sub(f.started)
	switch {
	case f.err != nil:
		r.Status, r.Reason, r.Departure = outcome.Classify(f.err)
		if r.Status == outcome.NotRun && errors.Is(f.err, godog.ErrSkip) && r.Reason == "" {
			r.Reason = "skipped"
		}
	case f.bad != "":
		r.Status, r.Reason = outcome.HarnessError, f.bad
	default:
		if reason, ok := c.notes.SkipReason(pickleID); ok {
			r.Status, r.Reason = outcome.NotRun, reason
		} else {
			r.Status = outcome.Passed
			for _, s := range r.Steps {
				if s.Status != "passed" {
					r.Status, r.Reason = outcome.HarnessError, fmt.Sprintf("step %q was %s without a reason", s.Text, s.Status)
					break
				}
			}
		}
	}
	r.Observed = c.notes.Observed(pickleID)
	c.results = append(c.results, ordered{result: *r, pass: c.pass})
	if c.observer != nil {
		c.observer.ScenarioFinished(*r)
	}
}

// setPass says which part of the report the next scenarios belong to.
func (c *collector) setPass(order int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pass = order
}

// ordered returns the finished scenarios in the run's order, whatever order
// they finished in: by pass, then by feature file and line, which is the
// order one scenario at a time runs them in.
func (c *collector) ordered() []outcome.Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	slices.SortStableFunc(c.results, func(a, b ordered) int {
		return cmp.Or(cmp.Compare(a.pass, b.pass), strings.Compare(a.result.FeatureFile, b.result.FeatureFile), cmp.Compare(a.result.Line, b.result.Line))
	})
	out := make([]outcome.Result, len(c.results))
	for i, o := range c.results {
		out[i] = o.result
	}
	return out
}
