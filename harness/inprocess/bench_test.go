package inprocess_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/conform-mcp/conform/harness/inprocess"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/runner"
)

// BenchmarkSuite measures one whole run of every scenario against the
// in-process reference host, the work behind `make conformance`. Hosts start
// fresh for each run, as the command starts them. cpu-ns/op is the CPU time
// the process spent per run, which other work on a shared machine disturbs
// less than the wall time.
func BenchmarkSuite(b *testing.B) {
	ctx := context.Background()
	before := cpuTime(b)
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
	b.ReportMetric(float64(cpuTime(b)-before)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
