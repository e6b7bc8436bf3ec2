package runner

import (
	"slices"
	"strings"

	"github.com/conform-mcp/conform/spec"
)

// Sections returns the sections a run of the pack ("" for the default) can
// select, as Selection takes them: every section a requirement comes from,
// and each of their parents ("7" for "7.3"), sorted. An unknown pack has none.
func Sections(pack string) []string {
	sp, err := spec.LoadPack(pack)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	for _, r := range sp.Requirements {
		if r.Level == spec.Reference {
			continue
		}
		for _, s := range r.Sections() {
			for p := s; p != ""; {
				seen[p] = true
				i := strings.LastIndex(p, ".")
				if i < 0 {
					break
				}
				p = p[:i]
			}
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	slices.SortFunc(out, spec.CompareSections)
	return out
}
