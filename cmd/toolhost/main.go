// Command toolhost is the reference tool host: MCP at {base}/mcp behind the
// four gates, the OAuth endpoints, and the discovery documents, over a
// persistent store.
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/conform-mcp/conform/internal/buildinfo"
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
		Version:       buildinfo.Version(),
	}
	root.SetVersionTemplate("toolhost {{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(serveCommand(stdout, stderr), approveCommand(), authorizeCommand(stdout), revokeCommand(stdout))
	return root
}
