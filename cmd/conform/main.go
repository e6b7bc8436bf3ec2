// Command conform runs the conformance suite of the agent-facing tool host
// against a target, lists its scenarios, diagnoses a failing call gate by
// gate, and signs in to a host. The features are embedded, so it runs from
// anywhere.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/conform-mcp/conform/harness/login"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/internal/buildinfo"
)

func main() {
	collectLessOften()
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

// gcPercent is the garbage collector's target for conform, unless GOGC
// says otherwise. A run keeps 2 to 3 MB live and allocates about 90 MB
// (most of it the MCP SDK's 32 KiB decode buffers in the in-process host,
// docs/sdk-decode-buffer.md), so at the default of 100 the collector ran 24
// times in a run of the default pack, for about a fifth of its CPU; at 400
// it runs 5 times, and the process peaks at about 50 MB resident instead
// of 34 MB.
const gcPercent = 400

// collectLessOften sets gcPercent: conform is a short-lived process whose
// heap stays small, so it trades a few MB of memory for CPU time.
func collectLessOften() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

// usage marks an error as a usage or profile error (exit 2).
func usage(format string, args ...any) error {
	return &exitError{code: outcome.ExitUsage, err: fmt.Errorf(format, args...)}
}

// stateDirFlag names the flag every command reads its state directory from.
const stateDirFlag = "state-dir"

// stateDir is the --state-dir a command was given ("" for the default).
func stateDir(cmd *cobra.Command) string {
	dir, _ := cmd.Flags().GetString(stateDirFlag)
	return dir
}

// execute runs the command line and returns the process exit code
// (PRODUCT.md section 3: 0 passed, 1 failed, 2 usage or profile error, 3 incomplete).
func execute(args []string, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:           "conform",
		Short:         rootShort,
		Long:          rootLong(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Version(),
	}
	root.SetVersionTemplate("conform {{.Version}}\n")
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	root.PersistentFlags().String(stateDirFlag, "", "where conform keeps the clients it registered and the credentials conform login stored, for every command (default: $"+login.StateDirEnv+", else the user's config directory)")
	root.AddCommand(runCommand(stdout, stderr), listCommand(stdout), diagnoseCommand(stdout, stderr), loginCommand(stdout, stderr))

	err := root.Execute()
	if err == nil {
		return outcome.ExitPassed
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "conform:", ee.err)
		}
		return ee.code
	}
	// Anything cobra itself refuses (unknown command, bad args) is usage.
	fmt.Fprintln(stderr, "conform:", err)
	return outcome.ExitUsage
}
