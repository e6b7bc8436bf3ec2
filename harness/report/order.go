package report

import (
	"path"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/spec"
)

// sortFeatures orders features by the section their file is named after
// (the features directory holds one file per section), as sectionCompare
// orders sections; the run itself goes through them in file-name order.
func sortFeatures(fs []feature) {
	name := func(f feature) string { return strings.TrimSuffix(path.Base(f.File), ".feature") }
	slices.SortStableFunc(fs, func(a, b feature) int { return spec.CompareSections(name(a), name(b)) })
}
