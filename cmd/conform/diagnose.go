package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/conform-mcp/conform/harness/diagnose"
	"github.com/conform-mcp/conform/harness/login"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/profile"
)

func diagnoseCommand(stdout, stderr io.Writer) *cobra.Command {
	var in diagnose.Input
	var credentialEnv string
	var anonymous bool
	var connection connectionFlags
	var args map[string]string
	cmd := &cobra.Command{
		Use:   "diagnose --target URL --tool NAME [--path P] [--arg K=V]... [--credential-env VAR | --anonymous]",
		Short: "Walk the diagnosis order and name the gate that refuses a call",
		Long: `Walk the source document's diagnosis order (section 7.5) for one tool call
and print each observation and one verdict: the host is unreachable, the tool
is not offered, gate 1 or 2 refused it (401), gate 3 refused it (AFS_FORBIDDEN),
gate 4 refused it (the provider lacks the operation), or it succeeds.

The call carries the credential in --credential-env; without it, the one
conform login stored for the target, as conform run does; --anonymous calls
with none.

Exit codes: 0 the call succeeds; 1 a gate or the host refuses it; 2 usage error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if in.Target == "" || in.Tool == "" {
				return usage("diagnose needs --target and --tool")
			}
			p := profile.Default("")
			p.SetTarget("--target", in.Target)
			in.Target = p.Target
			for _, note := range p.Notes {
				fmt.Fprintln(stderr, "conform:", note)
			}
			switch {
			case anonymous && credentialEnv != "":
				return usage("--anonymous and --credential-env contradict each other")
			case credentialEnv != "":
				in.Credential = strings.TrimSpace(os.Getenv(credentialEnv))
				if in.Credential == "" {
					return usage("--credential-env %s: the variable is empty or unset: export a credential the host issued in it, or sign in once with `conform login --target %s` and leave --credential-env out (diagnose then uses the stored credential)", credentialEnv, in.Target)
				}
			case !anonymous:
				if c, ok := login.StoredCredential(stateDir(cmd), in.Target); ok {
					in.Credential = c
					fmt.Fprintf(stderr, "conform: using the credential conform login stored for %s (--anonymous to call without it)\n", in.Target)
				}
			}
			conn, err := connection.parse(stderr)
			if err != nil {
				return usage("%v", err)
			}
			in.HTTP = conn.Client(in.Target)
			in.Rerun = connection.words()
			if len(args) > 0 {
				in.Arguments = map[string]any{}
				for k, v := range args {
					in.Arguments[k] = v
				}
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			report, err := diagnose.Diagnose(ctx, in)
			if err != nil {
				return usage("%v", err)
			}
			if err := report.Write(stdout); err != nil {
				return err
			}
			if report.Verdict.Step != 0 || report.Verdict.Uncovered {
				return &exitError{code: outcome.ExitFailed}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&in.Target, "target", "", "base URL of the host")
	fl.StringVar(&in.Tool, "tool", "", "name of the tool whose call fails")
	fl.StringVar(&in.Path, "path", "", "path argument of the call")
	fl.StringVar(&credentialEnv, "credential-env", "", "environment variable holding the credential to call with (default: the one conform login stored)")
	fl.BoolVar(&anonymous, "anonymous", false, "call without a credential, even one conform login stored")
	fl.StringToStringVar(&args, "arg", nil, "further string arguments of the call, e.g. --arg content=hello")
	connection.bind(fl)
	return cmd
}
