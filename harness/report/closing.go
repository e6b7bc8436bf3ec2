package report

import (
	"fmt"
	"slices"

	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/spec"
)

// failedRequirement is one requirement that some scenario of the run failed.
type failedRequirement struct {
	spec.Requirement
	// Count is how many failed scenarios check the requirement.
	Count int
	// Tolerated is true when none of those failures decides the exit code.
	Tolerated bool
	// First is the first failed scenario that checks it, in run order.
	First outcome.Result
}

// failedRequirements lists the requirements failed in the run: those whose
// failures decide the exit code first, then the tolerated ones, each group
// in the order the run first failed them. A person reading a long run learns
// from it what to fix without scrolling back through every scenario.
func failedRequirements(run outcome.Run) []failedRequirement {
	var out []failedRequirement
	index := map[string]int{}
	for _, r := range run.Results {
		if r.Status != outcome.Failed {
			continue
		}
		for _, q := range r.Requirements {
			i, ok := index[q.ID]
			if !ok {
				i = len(out)
				index[q.ID] = i
				out = append(out, failedRequirement{Requirement: q, First: r, Tolerated: true})
			}
			out[i].Count++
			out[i].Tolerated = out[i].Tolerated && run.Tolerated(r)
		}
	}
	slices.SortStableFunc(out, func(a, b failedRequirement) int {
		switch {
		case a.Tolerated == b.Tolerated:
			return 0
		case b.Tolerated:
			return -1
		}
		return 1
	})
	return out
}

// notRunGroup is every scenario of the run not run for one reason.
type notRunGroup struct {
	Reason string
	Count  int
	First  outcome.Result
}

// notRunGroups groups the scenarios not run by their reason, in the order
// the reasons first occur: a target without a peer leaves a dozen scenarios
// not run for the one same reason, which is said once with a count.
func notRunGroups(run outcome.Run) []notRunGroup {
	var out []notRunGroup
	index := map[string]int{}
	for _, r := range run.Results {
		if r.Status != outcome.NotRun {
			continue
		}
		i, ok := index[r.Reason]
		if !ok {
			i = len(out)
			index[r.Reason] = i
			out = append(out, notRunGroup{Reason: r.Reason, First: r})
		}
		out[i].Count++
	}
	return out
}

// reasonNumber is the 1-based number of r's reason among the groups.
func reasonNumber(groups []notRunGroup, r outcome.Result) int {
	for i, g := range groups {
		if g.Reason == r.Reason {
			return i + 1
		}
	}
	return 0
}

// closing is the end of a text report, before the exit meaning: the failed
// requirements (ID, level, how many scenarios, the first of them) and the
// reasons scenarios were not run, each with its count. Each block is
// preceded by a blank line; a run with neither gets no lines.
func closing(run outcome.Run) []string {
	var lines []string
	if failed := failedRequirements(run); len(failed) > 0 {
		idWidth := 0
		for _, f := range failed {
			idWidth = max(idWidth, len(f.ID))
		}
		lines = append(lines, "", fmt.Sprintf("Failed requirements (%d):", len(failed)))
		for _, f := range failed {
			note := ""
			if f.Tolerated {
				note = ", tolerated"
			}
			lines = append(lines, fmt.Sprintf("  %-*s  %-6s  %s%s, first: %s (%s:%d)",
				idWidth, f.ID, f.Level, plural(f.Count, "scenario", "scenarios"), note, f.First.Scenario, f.First.FeatureFile, f.First.Line))
		}
	}
	if groups := notRunGroups(run); len(groups) > 0 {
		lines = append(lines, "", "Reasons for scenarios not run:")
		for i, g := range groups {
			lines = append(lines, fmt.Sprintf("  %d) %s not run: %s", i+1, plural(g.Count, "scenario", "scenarios"), g.Reason),
				fmt.Sprintf("     first: %s (%s:%d)", g.First.Scenario, g.First.FeatureFile, g.First.Line))
		}
	}
	return lines
}
