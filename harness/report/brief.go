package report

import (
	"fmt"
	"io"

	"github.com/conform-mcp/conform/harness/outcome"
)

// Brief is the end of every text report alone: the exit meaning, then the
// summary line. A run whose reports all go to files writes it to standard
// error, so that the person or the CI log that started the run still sees
// its verdict without opening a file.
type Brief struct{}

// Write renders the run's exit meaning and summary line.
func (Brief) Write(w io.Writer, run outcome.Run) error {
	if _, err := fmt.Fprintf(w, "%s\n%s\n", exitMeaning(run), run.Tally().Summary()); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	return nil
}

// OnlyFiles says whether every output goes to a file, so that nothing of
// the run would reach the terminal.
func OnlyFiles(outputs []Output) bool {
	for _, o := range outputs {
		if o.Path == "" {
			return false
		}
	}
	return true
}
