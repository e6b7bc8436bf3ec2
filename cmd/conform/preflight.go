package main

import (
	"fmt"
	"io"
	"time"

	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/report"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/harness/target"
)

// writeStopped writes the file reports of a run the pre-flight stopped, so
// that a CI job that uploads its reports shows why nothing ran: one failing
// scenario carrying the pre-flight's message when the target failed it, one
// not run when the user's set-up did (usage, a credential refused: exit 2),
// which is no verdict on the host. The reports on stdout are left out: the
// message is on stderr already.
func writeStopped(outputs []report.Output, stdout io.Writer, t *target.Target, pack *runner.Pack, started time.Time, stopped error, usage bool) error {
	var files []report.Output
	for _, o := range outputs {
		if o.Path != "" {
			files = append(files, o)
		}
	}
	if len(files) == 0 {
		return nil
	}
	run := outcome.Run{Target: t.Name(), Pack: pack.Name, Started: started, Duration: time.Since(started)}
	run.Results = []outcome.Result{{
		ID:          "pre-flight: " + t.Name(),
		Pack:        pack.Name,
		Feature:     "Pre-flight",
		FeatureFile: "pre-flight",
		Scenario:    "The target answers the pre-flight, so the scenarios can run",
		Status:      outcome.Failed,
		Reason:      stopped.Error(),
		Departure: &outcome.Departure{
			Check:    "pre-flight",
			Expected: pack.Preflight.Demand,
			Actual:   stopped.Error(),
		},
	}}
	if usage {
		r := &run.Results[0]
		r.Status, r.Reason, r.Departure = outcome.NotRun, "usage error: "+stopped.Error(), nil
	}
	if err := report.WriteAll(files, stdout, run); err != nil {
		return fmt.Errorf("write reports: %w", err)
	}
	return nil
}
