package clientsteps_test

import (
	"context"

	"github.com/conform-mcp/conform/harness/clientsteps"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/runner"
)

// verdict is one scenario's outcome as the tests read it.
type verdict struct {
	status outcome.Status
	// why is the departure or the reason, for failure messages.
	why string
}

// runPack runs the client half of cfg.Pack against cfg through the runner,
// as conform run --client does, and returns each scenario's verdict by
// name.
func runPack(cfg clientsteps.Config) (map[string]verdict, error) {
	return runTagged(cfg, "")
}

// runTagged is runPack of the scenarios tags selects.
func runTagged(cfg clientsteps.Config, tags string) (map[string]verdict, error) {
	run, err := runner.RunClient(context.Background(), runner.ClientOptions{Options: runner.Options{Pack: cfg.Pack, Tags: tags}, Client: cfg})
	if err != nil {
		return nil, err
	}
	by := map[string]verdict{}
	for _, r := range run.Results {
		v := verdict{status: r.Status, why: r.Reason}
		if r.Departure != nil {
			v.why = r.Departure.Error()
		}
		by[r.Scenario] = v
	}
	return by, nil
}
