package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/conform-mcp/conform/harness/clientsteps"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/report"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/harness/scripted"
	"github.com/conform-mcp/conform/spec"
)

// clientFlag names run's flag that selects the client half.
const clientFlag = "client"

// clientProfile is the client the run judges: --client over the profile's
// client: block; nil when the run judges a server. A profile whose client:
// block is all it holds runs the client half without --client.
func clientProfile(f runFlags) (*profile.Client, error) {
	var c *profile.Client
	if f.profile != "" {
		p, err := profile.Load(f.profile)
		if err != nil {
			return nil, usage("%v", err)
		}
		if p.Client != nil && (f.client != "" || !p.Keys["target"]) {
			c = p.Client
		}
	}
	if f.client == "" {
		return c, nil
	}
	if f.target != "" {
		return nil, usage("--client and --target: conform plays the server when it judges a client; give one of them")
	}
	if c == nil {
		c = &profile.Client{}
	}
	c.Command = f.client
	if err := c.Validate(); err != nil {
		return nil, usage("--client: %v", err)
	}
	return c, nil
}

// runClientHalf runs the client half of the pack --spec names (the default
// pack without it) against the user's client, and reports as a server run
// does.
func runClientHalf(ctx context.Context, f runFlags, c *profile.Client, sections []string, outputs []report.Output, expected map[string]bool, stdout, stderr io.Writer) error {
	timeout, err := c.TimeoutOrDefault()
	if err != nil {
		return usage("%v", err)
	}
	pack, err := runner.ClientHalf(f.pack)
	if err != nil {
		return usage("%v", err)
	}
	if err := runner.CheckSelection(pack.Name, f.tags, sections); err != nil {
		return usage("%v", err)
	}
	pre, err := preregistered(c, pack.Name)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "conform: judging the client %q by the client half of %s; conform plays the servers\n", c.Command, pack.Name)
	run, err := runner.RunClient(ctx, runner.ClientOptions{
		Options: runner.Options{
			Pack:     pack.Name,
			Tags:     f.tags,
			Sections: sections,
			Scenario: f.scenario,
			Strict:   f.strict,
			Expected: expected,
			Observer: observer{live: report.LiveAll(outputs), stderr: stderr, hasLive: hasLive(outputs)},
		},
		Client: clientsteps.Config{
			Command: c.Command, Second: c.ToolCommand, Env: c.Environment(), Timeout: timeout, Preregistered: pre,
			MetadataURL: c.MetadataURL, Log: verboseLog(f, stderr),
		},
	})
	if err != nil {
		return usage("%v", err)
	}
	return finishRun(run, outputs, expected, stdout, stderr)
}

// verboseLog is where -v writes the client's exchanges as they complete,
// nil without it.
func verboseLog(f runFlags, stderr io.Writer) io.Writer {
	if f.connection.verbose {
		return stderr
	}
	return nil
}

// preregistered is the client the profile says the user registered
// beforehand, its secret read from the environment. Only the
// mcp-authorization pack's scripted authorization servers take one: the
// source document's client registers (source 7.3).
func preregistered(c *profile.Client, pack string) (scripted.Preregistered, error) {
	if c.MetadataURL != "" && pack != spec.Authorization {
		return scripted.Preregistered{}, usage("client.client_metadata_url: the %s pack's client registers itself (source 7.3); a client ID metadata document is for --spec %s", pack, spec.Authorization)
	}
	if c.ClientID == "" {
		return scripted.Preregistered{}, nil
	}
	if pack != spec.Authorization {
		return scripted.Preregistered{}, usage("client.client_id: the %s pack's client registers itself (source 7.3); a client registered beforehand is for --spec %s", pack, spec.Authorization)
	}
	pre := scripted.Preregistered{ID: c.ClientID}
	if c.ClientSecretEnv != "" {
		pre.Secret = os.Getenv(c.ClientSecretEnv)
		if pre.Secret == "" {
			return pre, usage("client.client_secret_env: %s is not set or empty", c.ClientSecretEnv)
		}
	}
	return pre, nil
}

// finishRun writes a finished run's reports and turns its verdict into the
// exit code.
func finishRun(run outcome.Run, outputs []report.Output, expected map[string]bool, stdout, stderr io.Writer) error {
	for id := range expected {
		if !ranScenario(run, id) {
			fmt.Fprintf(stderr, "conform: expected failure %q is not among the scenarios run\n", id)
		}
	}
	if err := report.WriteAll(outputs, stdout, run); err != nil {
		return &exitError{code: outcome.ExitUsage, err: fmt.Errorf("write reports: %w", err)}
	}
	if err := briefWhenOnlyFiles(outputs, stderr, run); err != nil {
		return &exitError{code: outcome.ExitUsage, err: err}
	}
	if code := run.ExitCode(); code != outcome.ExitPassed {
		return &exitError{code: code}
	}
	return nil
}
