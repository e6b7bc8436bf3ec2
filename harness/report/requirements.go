package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/spec"
)

// requirementRow is one requirement the run checked, with the verdict of
// its scenarios taken together and each of them, for the HTML report's
// per-requirement matrix.
type requirementRow struct {
	spec.Requirement
	Verdict, Class string
	Scenarios      []scenarioLink
	rank           int
}

// scenarioLink points from a requirement to one scenario that checks it.
type scenarioLink struct {
	Anchor, Name, Verdict, Class string
}

// requirementRows lists every requirement named by a scenario of the run:
// failures first (those that decide the exit code, then harness errors,
// then tolerated ones), then those not fully run, then the passed, each
// group by source section. links gives each result's anchor and class.
func requirementRows(run outcome.Run, links []scenarioLink) []requirementRow {
	var rows []requirementRow
	index := map[string]int{}
	results := map[string][]outcome.Result{}
	for i, r := range run.Results {
		for _, q := range r.Requirements {
			j, ok := index[q.ID]
			if !ok {
				j = len(rows)
				index[q.ID] = j
				rows = append(rows, requirementRow{Requirement: q})
			}
			rows[j].Scenarios = append(rows[j].Scenarios, links[i])
			results[q.ID] = append(results[q.ID], r)
		}
	}
	for i := range rows {
		rows[i].Verdict, rows[i].Class, rows[i].rank = requirementVerdict(run, results[rows[i].ID])
	}
	slices.SortStableFunc(rows, func(a, b requirementRow) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		if c := spec.CompareSections(firstSection(a.Requirement), firstSection(b.Requirement)); c != 0 {
			return c
		}
		return idCompare(a.ID, b.ID)
	})
	return rows
}

// firstSection is the first source section a requirement comes from.
func firstSection(q spec.Requirement) string {
	if s := q.Sections(); len(s) > 0 {
		return s[0]
	}
	return ""
}

// idCompare orders requirement IDs by prefix, then by number, so that
// SVC-10 follows SVC-9.
func idCompare(a, b string) int {
	pa, na := splitID(a)
	pb, nb := splitID(b)
	if c := strings.Compare(pa, pb); c != 0 {
		return c
	}
	if na != nb {
		return na - nb
	}
	return strings.Compare(a, b)
}

func splitID(id string) (string, int) {
	i := strings.LastIndexByte(id, '-')
	if i < 0 {
		return id, 0
	}
	n, err := strconv.Atoi(id[i+1:])
	if err != nil {
		return id, 0
	}
	return id[:i], n
}

// requirementVerdict decides a requirement's verdict from the scenarios
// that check it, by the rule of the exit code: any failure that counts
// fails it; a harness error leaves it undecided; tolerated failures show as
// such; it passes only when every scenario ran and passed. It returns the
// words, the CSS class and the rank the matrix sorts by.
func requirementVerdict(run outcome.Run, rs []outcome.Result) (string, string, int) {
	var failed, harness, tolerated, notRun int
	for _, r := range rs {
		switch {
		case r.Status == outcome.HarnessError:
			harness++
		case run.FailsRun(r):
			// A counted failure, or an expected failure that now passes.
			failed++
		case run.Tolerated(r):
			tolerated++
		case r.Status == outcome.NotRun:
			notRun++
		}
	}
	switch {
	case failed > 0:
		return "FAILED", "failed", 0
	case harness > 0:
		return "HARNESS ERROR", "harness", 1
	case tolerated > 0:
		return "failed (tolerated)", "warn", 2
	case notRun == len(rs):
		return "not run", "notrun", 3
	case notRun > 0:
		return fmt.Sprintf("passed, %d of %d not run", notRun, len(rs)), "notrun", 3
	}
	return "passed", "passed", 4
}
