// Package browser finds the Chromium the browser tests drive.
package browser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// EnvVar names a Chromium binary explicitly, for systems where it is not on
// PATH under the name chromium (a macOS app bundle, a chromium-browser).
const EnvVar = "CHROMIUM"

// Chromium returns the Chromium binary to drive: $CHROMIUM when set, else
// chromium on PATH. The error says how to provide one.
func Chromium() (string, error) {
	if p := os.Getenv(EnvVar); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvVar, p, err)
		}
		return p, nil
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		return "", errors.New("no chromium on PATH: install Chromium (Debian: apt-get install chromium), or set " +
			EnvVar + " to a Chromium binary")
	}
	return p, nil
}
