package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// suggestWithin is the largest edit distance at which a known flag is
// offered for a mistyped one: cobra's own for mistyped commands.
const suggestWithin = 2

// flagError is every command's flag-error function: a usage error (exit
// 2) that, for an unknown flag, names the closest flag the command knows,
// as cobra does for a mistyped command ("--taget": did you mean --target?).
func flagError(cmd *cobra.Command, err error) error {
	if name, ok := strings.CutPrefix(err.Error(), "unknown flag: --"); ok {
		if known := closestFlag(cmd.Flags(), name); known != "" {
			return usage("%v; did you mean --%s?", err, known)
		}
	}
	return usage("%v", err)
}

// closestFlag is the visible flag of fs nearest to name by edit distance,
// if one is within suggestWithin; the first in name order on a tie.
func closestFlag(fs *pflag.FlagSet, name string) string {
	best, bestDistance := "", suggestWithin+1
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if d := editDistance(name, f.Name); d < bestDistance {
			best, bestDistance = f.Name, d
		}
	})
	return best
}

// editDistance is the Levenshtein distance between a and b: the fewest
// insertions, deletions and substitutions that turn one into the other.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
