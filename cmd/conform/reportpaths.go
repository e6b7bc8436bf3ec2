package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/conform-mcp/conform/harness/report"
)

// checkReportPaths makes sure every report file can be written before the
// run starts: a path found unwritable after the run would lose the run's
// reports and hide its exit code behind a usage error. It creates the
// folders the reports go in (writing them would), and leaves no file behind
// that was not there.
func checkReportPaths(outputs []report.Output) error {
	for _, o := range outputs {
		if o.Path == "" {
			continue
		}
		if err := writable(o.Path); err != nil {
			return fmt.Errorf("report %s:%s cannot be written: %w", o.Name, o.Path, err)
		}
	}
	return nil
}

func writable(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	_, statErr := os.Stat(path)
	existed := statErr == nil
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	err = f.Close()
	if !existed && errors.Is(statErr, fs.ErrNotExist) {
		err = errors.Join(err, os.Remove(path))
	}
	return err
}
