package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/spec"
)

func listCommand(stdout io.Writer) *cobra.Command {
	var tags, pack string
	cmd := &cobra.Command{
		Use:   "list [SECTION...]",
		Short: "List every scenario with its pack, requirement IDs and capability tags; runs nothing",
		RunE: func(_ *cobra.Command, sections []string) error {
			scenarios, err := runner.List(pack, tags, sections)
			if err != nil {
				return usage("%v", err)
			}
			if len(scenarios) == 0 {
				return usage("no scenario matches the selection")
			}
			for _, s := range scenarios {
				fmt.Fprintln(stdout, s.ID)
				fmt.Fprintf(stdout, "    pack: %s\n", s.Pack)
				fmt.Fprintf(stdout, "    requirements: %s\n", strings.Join(s.Requirements, " "))
				if len(s.Capabilities) > 0 {
					fmt.Fprintf(stdout, "    needs: %s\n", strings.Join(s.Capabilities, " "))
				}
			}
			fmt.Fprintf(stdout, "%d scenarios\n", len(scenarios))
			return nil
		},
	}
	cmd.Flags().StringVar(&tags, "tags", "", "tag expression")
	cmd.Flags().StringVar(&pack, "spec", spec.Source, "specification pack: "+strings.Join(spec.Packs(), ", "))
	completePack(cmd)
	return cmd
}
