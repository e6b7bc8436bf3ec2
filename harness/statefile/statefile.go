// Package statefile writes the files conform keeps in its state directory
// (the credentials conform login stored, the clients runs registered): whole
// or not at all, readable by their owner alone.
package statefile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write replaces path with data through a temporary file in the same
// directory, so that an interrupted write never leaves a truncated file.
// The directory is made (0700) when missing; the file is 0600, as
// os.CreateTemp makes it, for it holds client secrets and credentials.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
