package afs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"strings"
	"unicode/utf8"
)

// Bounds of a search.
const (
	DefaultSearchLimit = 100
	// maxSearchDepth stops a walk through a deep tree.
	maxSearchDepth = MaxListDepth
	// maxSearchLine is how much of a matching line a result carries.
	maxSearchLine = 200
)

// Match is one search hit: a name that contains the query (Line 0) or a
// line of a file that does.
type Match struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
	Text string `json:"text"`
}

// SearchResult is afs_search's answer.
type SearchResult struct {
	Path      string  `json:"path"`
	Query     string  `json:"query"`
	Matches   []Match `json:"matches"`
	Truncated bool    `json:"truncated"`
}

// Search looks for query, case-insensitively, in the names and text content
// of p and everything beneath it. Like List, it only looks at entries gate 3
// opens to network clients for search.
func (f *FS) Search(ctx context.Context, p, query string, limit int) (SearchResult, error) {
	n, err := f.admit(p, OpSearch)
	if err != nil {
		return SearchResult{}, err
	}
	root, err := f.mounts.lookup(ctx, n.path)
	if err != nil {
		return SearchResult{}, fail(n.path, OpSearch, err)
	}
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	res := SearchResult{Path: n.path, Query: query, Matches: []Match{}}
	needle := strings.ToLower(query)
	add := func(m Match) bool {
		if len(res.Matches) == limit {
			res.Truncated = true
			return false
		}
		res.Matches = append(res.Matches, m)
		return true
	}
	visit := func(e node) bool {
		if !f.policy.Decide(e.path).Open.Has(OpSearch) {
			return true
		}
		if strings.Contains(strings.ToLower(e.info.Name), needle) && !add(Match{Path: e.path, Text: e.info.Name}) {
			return false
		}
		if e.info.Kind != KindFile || !e.caps().Has(OpRead) {
			return true
		}
		return f.searchFile(ctx, e, needle, add)
	}
	if root.info.Kind == KindFile {
		visit(root)
		return res, nil
	}
	if err := f.walk(ctx, root, maxSearchDepth, visit); err != nil && !errors.Is(err, errStop) {
		return SearchResult{}, fail(n.path, OpSearch, err)
	}
	return res, nil
}

// searchFile adds the lines of text file e that contain needle; binary
// content is skipped. It returns false once add refuses.
func (f *FS) searchFile(ctx context.Context, e node, needle string, add func(Match) bool) bool {
	data, err := e.mount.Provider.(Reader).Read(ctx, e.name)
	if err != nil || !utf8.Valid(data) {
		return true
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if !strings.Contains(strings.ToLower(text), needle) {
			continue
		}
		if len(text) > maxSearchLine {
			text = strings.ToValidUTF8(text[:maxSearchLine], "")
		}
		if !add(Match{Path: e.path, Line: line, Text: text}) {
			return false
		}
	}
	return true
}
