package diagnose

import (
	"maps"
	"regexp"
	"slices"
	"strings"
)

// plainWord is what a shell takes as one word without quoting.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:@%+=,-]+$`)

// rerun is the command line that diagnoses the same call again, for a
// remedy to name: every word of it works as printed. It carries no
// credential flag, so after `conform login` it calls with the credential
// login stored, as conform diagnose does when given none.
func (w *walk) rerun(extra ...string) string {
	words := []string{"conform", "diagnose", "--target", w.base, "--tool", w.in.Tool}
	if w.in.Path != "" {
		words = append(words, "--path", w.in.Path)
	}
	for _, k := range slices.Sorted(maps.Keys(w.in.Arguments)) {
		if s, ok := w.in.Arguments[k].(string); ok && k != "path" {
			words = append(words, "--arg", k+"="+s)
		}
	}
	words = append(words, extra...)
	words = append(words, w.in.Rerun...)
	for i, word := range words {
		if !plainWord.MatchString(word) {
			words[i] = "'" + strings.ReplaceAll(word, "'", `'\''`) + "'"
		}
	}
	return strings.Join(words, " ")
}
