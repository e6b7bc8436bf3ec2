package main

import (
	"io"

	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/report"
)

// forTerminal sets the reports a person reads as the run's flags ask: -v
// lists in progress what passed scenarios observed, beside the failures,
// and --strict decides which failures its marks show as tolerated.
func forTerminal(outputs []report.Output, f runFlags) {
	for _, o := range outputs {
		if p, ok := o.Writer.(*report.Progress); ok {
			p.Observed = f.connection.verbose
			p.Strict = f.strict
		}
	}
}

// briefWhenOnlyFiles writes the exit meaning and the summary line to stderr
// when every report of the run went to a file, so that the terminal or the
// CI log still shows the verdict.
func briefWhenOnlyFiles(outputs []report.Output, stderr io.Writer, run outcome.Run) error {
	if !report.OnlyFiles(outputs) {
		return nil
	}
	return report.Brief{}.Write(stderr, run)
}
