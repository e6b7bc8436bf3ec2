package clientsteps_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/cucumber/godog"
	"github.com/cucumber/godog/formatters"
	messages "github.com/cucumber/messages/go/v21"

	"github.com/conform-mcp/conform/features/clients"
	"github.com/conform-mcp/conform/harness/clientsteps"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/steps"
)

// verdict is one scenario's outcome as the tests read it.
type verdict struct {
	status outcome.Status
	// why is the departure or the reason, for failure messages.
	why string
}

// results collects verdicts by scenario name: a stand-in for the runner's
// collector until the client half is wired into harness/runner.
type results struct {
	mu  sync.Mutex
	cur string
	err error
	bad bool
	by  map[string]verdict
}

var _ formatters.Formatter = (*results)(nil)

func (r *results) TestRunStarted()                                                            {}
func (r *results) Feature(*messages.GherkinDocument, string, []byte)                          {}
func (r *results) Defined(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {}
func (r *results) Pickle(p *messages.Pickle) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finish()
	r.cur, r.err, r.bad = p.Name, nil, false
}
func (r *results) Passed(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition)  {}
func (r *results) Skipped(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {}
func (r *results) Failed(_ *messages.Pickle, _ *messages.PickleStep, _ *formatters.StepDefinition, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
}
func (r *results) Undefined(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bad = true
}
func (r *results) Pending(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
	r.Undefined(nil, nil, nil)
}
func (r *results) Ambiguous(_ *messages.Pickle, _ *messages.PickleStep, _ *formatters.StepDefinition, err error) {
	r.Undefined(nil, nil, nil)
}
func (r *results) Summary() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finish()
}

func (r *results) finish() {
	if r.cur == "" {
		return
	}
	v := verdict{status: outcome.Passed}
	switch {
	case r.bad:
		v = verdict{status: outcome.HarnessError, why: "undefined, pending or ambiguous step"}
	case r.err != nil:
		status, reason, d := outcome.Classify(r.err)
		v = verdict{status: status, why: reason}
		if d != nil {
			v.why = d.Error()
		}
	}
	if errors.Is(r.err, godog.ErrSkip) && v.status == outcome.NotRun && v.why == "" {
		v.why = "skipped"
	}
	r.by[r.cur] = v
	r.cur = ""
}

var formats atomic.Int64

// runPack runs the client half of pack against cfg, Strict, one scenario
// at a time, and returns each scenario's verdict by name.
func runPack(cfg clientsteps.Config) (map[string]verdict, error) {
	res := &results{by: map[string]verdict{}}
	name := fmt.Sprintf("client-results-%d", formats.Add(1))
	godog.Format(name, "collects the client half's verdicts", func(string, io.Writer) formatters.Formatter { return res })
	status := godog.TestSuite{
		Name:                "conform-clients",
		ScenarioInitializer: clientsteps.Initializer(cfg, steps.NewNotes()),
		Options: &godog.Options{
			Format: name, Strict: true, FS: clients.FS, Paths: []string{cfg.Pack},
			Output: io.Discard, Concurrency: 1, DefaultContext: context.Background(),
		},
	}.Run()
	if status == 2 {
		return nil, fmt.Errorf("godog refused its options")
	}
	return res.by, nil
}
