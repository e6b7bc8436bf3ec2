package inprocess_test

import (
	"context"
	"testing"

	"github.com/conform-mcp/conform/harness/inprocess"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/runner"
)

// BenchmarkSuite measures one whole run of every scenario against the
// in-process reference host, the work behind `make conformance`. Hosts start
// fresh for each run, as the command starts them.
func BenchmarkSuite(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		t, stop, err := inprocess.Start(ctx)
		if err != nil {
			b.Fatal(err)
		}
		run, err := runner.Run(ctx, runner.Options{Target: t})
		stop()
		if err != nil {
			b.Fatal(err)
		}
		if code := run.ExitCode(); code != outcome.ExitPassed {
			b.Fatalf("exit code %d", code)
		}
	}
}
