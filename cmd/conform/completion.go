package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/conform-mcp/conform/harness/report"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/spec"
)

// completeRun teaches the shell completion that cobra's "completion"
// command generates the values of --spec and --format and the sections of
// the chosen pack.
func completeRun(cmd *cobra.Command) {
	completePack(cmd)
	_ = cmd.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return report.Names(), cobra.ShellCompDirectiveNoSpace
	})
}

// completePack completes --spec and the SECTION arguments.
func completePack(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("spec", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return spec.Packs(), cobra.ShellCompDirectiveNoFileComp
	})
	cmd.ValidArgsFunction = func(c *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		pack, _ := c.Flags().GetString("spec")
		var out []string
		for _, s := range runner.Sections(pack) {
			if strings.HasPrefix(s, prefix) {
				out = append(out, s)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
