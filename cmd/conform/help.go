package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/conform-mcp/conform/spec"
)

// rootShort is the one line conform's help starts with.
const rootShort = "Conformance suite for MCP servers and clients, one specification pack per document checked"

// rootLong is conform's help: what it does, and every pack it carries with
// the pack's own title, listed from the packs themselves so that a pack
// added later is named without another word here.
func rootLong() string {
	var b strings.Builder
	b.WriteString("conform runs a specification pack's scenarios against a target and reports each\n" +
		"departure with the requirement it breaks and the HTTP exchanges that show it.\n" +
		"Each pack has a client half too: conform run --spec NAME --client 'COMMAND {url}'\n" +
		"plays the pack's servers and judges the requests of the MCP client COMMAND runs.\n\n" +
		"Specification packs (conform run --spec NAME):\n")
	packs, err := spec.LoadAll()
	if err != nil {
		// The packs are embedded; their own tests keep them loadable.
		fmt.Fprintf(&b, "  %s (%v)\n", strings.Join(spec.Packs(), ", "), err)
		return b.String()
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, p := range packs {
		name := p.Pack
		if name == spec.Source {
			name += " (default)"
		}
		fmt.Fprintf(tw, "  %s\t%s\n", name, p.Title)
	}
	_ = tw.Flush()
	return b.String()
}
