package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/conform-mcp/conform/harness/login"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/profile"
)

func loginCommand(stdout, stderr io.Writer) *cobra.Command {
	var base, profileFile string
	var connection connectionFlags
	cmd := &cobra.Command{
		Use:   "login --target URL",
		Short: "Sign in to a host through the device grant and keep the credential for later runs",
		Long: `Register a client once (and keep its client_id, as source section 7.3 asks),
start a device authorization, print the user code and verification URI, wait
for the approval, and store the credential. Later runs against the same target
use it when the profile's credential variable is empty. The credential is
never printed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := profile.Default("")
			if profileFile != "" {
				loaded, err := profile.Load(profileFile)
				if err != nil {
					return usage("%v", err)
				}
				p = loaded
			}
			if base != "" {
				p.SetTarget("--target", base)
			}
			if err := p.Validate(); err != nil {
				return usage("login needs --target (or a profile): %v", err)
			}
			for _, note := range p.Notes {
				fmt.Fprintln(stderr, "conform:", note)
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			conn, err := connection.parse(stderr)
			if err != nil {
				return usage("%v", err)
			}
			_, err = login.Run(ctx, login.Options{
				Target:    p.Target,
				Endpoints: p.OAuth.Endpoints(),
				Out:       stdout,
				StateDir:  stateDir(cmd),
				HTTP:      conn.Client(p.Target),
			})
			if err != nil {
				return &exitError{code: outcome.ExitFailed, err: fmt.Errorf("login to %s: %w", p.Target, err)}
			}
			fmt.Fprintf(stdout, "Signed in to %s; later runs against it use the stored credential.\n", p.Target)
			return nil
		},
	}
	cmd.Flags().StringVar(&base, "target", "", "base URL of the host")
	cmd.Flags().StringVar(&profileFile, "profile", "", "target profile, for hosts whose OAuth paths differ")
	connection.bind(cmd.Flags())
	return cmd
}
