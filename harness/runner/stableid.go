package runner

import (
	"regexp"
	"strings"

	"github.com/conform-mcp/conform/spec"
)

// idTag is the tag that gives a scenario the slug of its stable ID; every
// scenario of every pack carries one (the spec's coverage test holds them to
// it), and it is never reworded with the title.
const idTag = "@id:"

// stableID is a scenario's ID for --expected-failures and --scenario that a
// reworded title leaves alone: the first requirement it checks, the slug of
// its @id: tag, and for a row of a Scenario Outline the slug of the row's
// first cell ("AUTH-3/anonymous-method-off-allowlist-answers-401/ping").
// It is "" for a scenario without an @id: tag.
func stableID(sp *spec.Spec, tags []string, row string) string {
	var requirement, slug string
	for _, t := range tags {
		if s, ok := strings.CutPrefix(t, idTag); ok && slug == "" {
			slug = s
		}
		if _, ok := sp.Get(strings.TrimPrefix(t, "@")); ok && requirement == "" {
			requirement = strings.TrimPrefix(t, "@")
		}
	}
	if slug == "" {
		return ""
	}
	id := slug
	if requirement != "" {
		id = requirement + "/" + slug
	}
	if row != "" {
		id += "/" + slugify(row)
	}
	return id
}

var notSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slugify turns a table cell into the lower-case words of a stable ID.
func slugify(s string) string {
	return strings.Trim(notSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}
