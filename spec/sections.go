package spec

import (
	"strconv"
	"strings"
)

// CompareSections is the one order of sections, in every report and list: the
// matrix's rows, the requirements' and the features'. Sections compare
// part by part, numbers as numbers, so that "2" comes before "10", "7.9"
// before "7.10" and "authorization.9" before "authorization.10"; a part that
// is not a number compares as text, and a section comes before its
// subsections. Parts are separated by dots, as sections are written, or by
// underscores, as the feature files named after them are
// (authorization_9_2_token_handling.feature).
func CompareSections(a, b string) int {
	split := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '_' })
	}
	pa, pb := split(a), split(b)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] == pb[i] {
			continue
		}
		na, errA := strconv.Atoi(pa[i])
		nb, errB := strconv.Atoi(pb[i])
		if errA != nil || errB != nil {
			return strings.Compare(pa[i], pb[i])
		}
		return na - nb
	}
	return len(pa) - len(pb)
}
