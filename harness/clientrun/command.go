// Package clientrun runs the user's MCP client as a command, the way
// approval commands are run (through sh, placeholders filled in), for the
// client half of a pack: in its own process group, killed as a whole when it
// overruns or its scenario ends, its output kept (bounded) for the report,
// and with a stand-in for the person at the browser (browser.go).
package clientrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Command is how the user's client is started.
type Command struct {
	// Script is run by sh -c with its placeholders filled in (Expand).
	Script string
	// Env is added to conform's own environment, as KEY=VALUE.
	Env []string
	// Timeout bounds one run; the whole process group is killed after it.
	Timeout time.Duration
}

// Values fill a script's placeholders.
type Values struct {
	// URL is the scenario's MCP endpoint ({url}).
	URL string
	// StateDir lasts for the whole run ({state_dir}), so that a client can
	// keep what it stores between two starts.
	StateDir string
	// Tool and Args are a tool the scenario's server offers and its
	// arguments as a JSON object ({tool}, {args}).
	Tool, Args string
}

// Uses reports whether script names the placeholder (without braces).
func Uses(script, name string) bool { return strings.Contains(script, "{"+name+"}") }

// Expand fills in the placeholders, each value shell-quoted so that a URL
// with & or an argument object with spaces and quotes reaches the client as
// one word: write the placeholders bare, never inside quotes.
func Expand(script string, v Values) string {
	return strings.NewReplacer(
		"{url}", Quote(v.URL),
		"{state_dir}", Quote(v.StateDir),
		"{tool}", Quote(v.Tool),
		"{args}", Quote(v.Args),
	).Replace(script)
}

// Quote is s as one sh word.
func Quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Result is what one run of the client did.
type Result struct {
	// Script is the command as run, its placeholders filled in.
	Script string
	// ExitCode is the shell's exit status; -1 when a signal ended it.
	ExitCode int
	// TimedOut is set when the run was killed for overrunning its timeout;
	// Killed when a signal ended it for any reason, the shell or the
	// command it ran (an exit status of 128 plus a signal's number).
	TimedOut, Killed bool
	// Stdout and Stderr are what it wrote, each bounded (their ends kept).
	Stdout, Stderr string
	// Opened are the authorization URLs the stand-in opened for it.
	Opened []Opened
	// Started and Ended bound the run.
	Started, Ended time.Time
}

// Crashed says why the run is no deliberate stop by the client, or "":
// killed by a signal or for overrunning its time. A refusal is judged only
// from a client that stopped of its own accord (issue 23, item 4).
func (r *Result) Crashed() string {
	switch {
	case r.TimedOut:
		return "it was still running when its time was up"
	case r.Killed:
		return "a signal ended it"
	}
	return ""
}

// waitDelay is how long a run's output may stay open after its shell has
// ended (a background child holding it): then the group is killed.
const waitDelay = time.Second

// Run starts the command through sh in its own process group, with the
// stand-in browser b in its environment, and waits until it ends, its
// timeout passes, or ctx ends (the scenario's end); in either of the last
// two it kills the whole group. Whatever is left of the group when the
// shell has ended is killed too: nothing is left behind. The error is
// conform's own (sh missing, a temporary directory); how the client ended
// is in the Result.
func Run(ctx context.Context, c Command, v Values, b *Browser) (*Result, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stand, err := b.start(runCtx)
	if err != nil {
		return nil, err
	}
	defer stand.stop()

	res := &Result{Script: Expand(c.Script, v)}
	stdout, stderr := newOutput(stand.watchLine), newOutput(stand.watchLine)
	cmd := exec.CommandContext(runCtx, "sh", "-c", res.Script)
	cmd.Env = append(append(os.Environ(), "BROWSER="+stand.script), c.Env...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	cmd.WaitDelay = waitDelay

	res.Started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the client command: %w", err)
	}
	waitErr := cmd.Wait()
	res.Ended = time.Now()
	// The shell is gone; what it started in the background is not.
	_ = killGroup(cmd.Process.Pid)
	res.TimedOut = errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	res.ExitCode = cmd.ProcessState.ExitCode()
	// A signal ends the shell itself (it ran the client in its place), or
	// shows in its status as 128 plus the signal's number (POSIX sh,
	// "Exit Status" of a command a signal ended).
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); (ok && ws.Signaled()) || (res.ExitCode > 128 && res.ExitCode <= 128+64) {
		res.Killed = true
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) && !errors.Is(waitErr, exec.ErrWaitDelay) && !res.Killed {
		return nil, fmt.Errorf("wait for the client command: %w", waitErr)
	}
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	res.Opened = stand.finish()
	return res, nil
}

// killGroup kills the process group led by pid; a group already gone is no
// error.
func killGroup(pid int) error {
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill the client's process group: %w", err)
	}
	return nil
}
