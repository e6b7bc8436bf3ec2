package target

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/conform-mcp/conform/harness/wire"
)

// stderrLines is how many of its last stderr lines a failed approval
// command is reported with: where its error is, without its whole log.
const stderrLines = 5

// runCommand runs an approval command's script through sh with args as $1,
// $2 (never spliced into the script) and returns its standard output. When
// it fails, the error names the profile key and quotes the last lines the
// command wrote to stderr: "exit status 1" alone says nothing about what to
// mend (a missing owner secret, a host not listening).
func runCommand(ctx context.Context, key, script, name string, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", script, name}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		// What the command wrote may quote a URL with a code or a token in
		// it, and the reason goes into report files.
		if tail := lastLines(stderr.String(), stderrLines); tail != "" {
			return nil, fmt.Errorf("%s: %w; its stderr ends: %s", key, err, wire.MaskQuery(tail))
		}
		// Some scripts say what went wrong on stdout.
		if tail := lastLines(stdout.String(), stderrLines); tail != "" {
			return nil, fmt.Errorf("%s: %w, with nothing on stderr; its stdout ends: %s", key, err, wire.MaskQuery(tail))
		}
		return nil, fmt.Errorf("%s: %w, with nothing on stderr or stdout", key, err)
	}
	return stdout.Bytes(), nil
}

// lastLines returns the last n non-blank lines of s, joined by " | " so that
// they stay on the one line of a not-run reason.
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines[max(len(lines)-n, 0):], " | ")
}
