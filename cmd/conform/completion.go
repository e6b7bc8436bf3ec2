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
	_ = cmd.RegisterFlagCompletionFunc("format", func(_ *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
		return formatCompletions(typed), cobra.ShellCompDirectiveNoSpace
	})
}

// formatCompletions completes the last entry of a comma-separated --format
// ("pretty,j" to "pretty,junit:"): each format after what is typed up to the
// last comma, but pretty and progress only once, as Parse takes them.
func formatCompletions(typed string) []string {
	done, last := "", typed
	if i := strings.LastIndex(typed, ","); i >= 0 {
		done, last = typed[:i+1], typed[i+1:]
	}
	named := map[string]bool{}
	for _, entry := range strings.Split(done, ",") {
		named[strings.TrimSpace(entry)] = true
	}
	var out []string
	for _, name := range report.Names() {
		if strings.HasPrefix(name, last) && !named[name] {
			out = append(out, done+name)
		}
	}
	return out
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
