// Command toolhost is the reference tool host: MCP at {base}/mcp behind the
// four gates, the OAuth endpoints, and the discovery documents, over a
// persistent store.
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/conform-mcp/conform/impl/oauth"
)

func main() {
	if err := command(os.Stdout, os.Stderr).ExecuteContext(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "toolhost:", err)
		os.Exit(1)
	}
}

func command(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "toolhost",
		Short:         "The reference agent-facing tool host",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(serveCommand(stdout, stderr), approveCommand())
	return root
}

// approveCommand approves a pending device sign-in without a browser, for CI
// and for conform's profile key oauth.device_approval_command:
//
//	device_approval_command: "toolhost approve --target {target} {user_code}"
func approveCommand() *cobra.Command {
	var base, role string
	cmd := &cobra.Command{
		Use:   "approve --target URL USER_CODE",
		Short: "Approve a pending device sign-in on a running host's consent page",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			return oauth.ApproveDevice(ctx, &http.Client{}, base, args[0], role)
		},
	}
	cmd.Flags().StringVar(&base, "target", "http://127.0.0.1:8080", "base URL of the host")
	cmd.Flags().StringVar(&role, "role", "owner", "role to grant: owner, admin, member or guest")
	return cmd
}
