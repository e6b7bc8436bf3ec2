package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/spec"
)

func listCommand(stdout io.Writer) *cobra.Command {
	var tags, pack string
	var asJSON, client bool
	cmd := &cobra.Command{
		Use:   "list [SECTION...]",
		Short: "List every scenario with its pack, IDs, requirement IDs and capability tags; runs nothing",
		RunE: func(_ *cobra.Command, sections []string) error {
			list := runner.List
			if client {
				list = runner.ListClient
			}
			scenarios, err := list(pack, tags, sections)
			if err != nil {
				return usage("%v", err)
			}
			if len(scenarios) == 0 {
				return usage("no scenario matches the selection")
			}
			if asJSON {
				return listJSON(stdout, pack, scenarios)
			}
			for _, s := range scenarios {
				fmt.Fprintln(stdout, s.ID)
				fmt.Fprintf(stdout, "    stable id: %s\n", s.StableID)
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
	cmd.Flags().BoolVar(&client, clientFlag, false, "list the client half's scenarios, which judge an MCP client (conform run --client)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array, one object per scenario, for programs")
	completePack(cmd)
	return cmd
}

// listedScenario is one scenario of `conform list --json`.
type listedScenario struct {
	Pack         string              `json:"pack"`
	ID           string              `json:"id"`
	StableID     string              `json:"stable_id"`
	File         string              `json:"file"`
	Line         int                 `json:"line"`
	Requirements []listedRequirement `json:"requirements"`
	Needs        []string            `json:"needs"`
	Tags         []string            `json:"tags"`
}

// listedRequirement is a requirement a listed scenario checks, with the
// level that says whether its failure fails a run.
type listedRequirement struct {
	ID      string `json:"id"`
	Level   string `json:"level"`
	Section string `json:"section"`
}

func listJSON(stdout io.Writer, pack string, scenarios []runner.Listing) error {
	sp, err := spec.LoadPack(pack)
	if err != nil {
		return usage("%v", err)
	}
	out := make([]listedScenario, 0, len(scenarios))
	for _, s := range scenarios {
		l := listedScenario{Pack: s.Pack, ID: s.ID, StableID: s.StableID, File: s.File, Line: s.Line,
			Requirements: []listedRequirement{}, Needs: append([]string{}, s.Capabilities...), Tags: s.Tags}
		for _, id := range s.Requirements {
			if r, ok := sp.Get(id); ok {
				l.Requirements = append(l.Requirements, listedRequirement{ID: r.ID, Level: string(r.Level), Section: r.Section})
			}
		}
		out = append(out, l)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
