package afs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/conform-mcp/conform/impl/budget"
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
	// Skipped counts the files larger than the search limit, whose names
	// were searched but not their content.
	Skipped int `json:"skipped,omitempty"`
	// FileLimit is that limit in bytes.
	FileLimit int64 `json:"file_limit"`
}

// Search looks for query, case-insensitively, in the names and text content
// of p and everything beneath it. Like List, it only looks at entries gate 3
// opens to network clients for search. Files are streamed line by line, and
// files larger than the search limit are skipped, so that memory never
// follows the size of the tree (issue 8 item 10). The bytes read are charged
// to the request's budget (package budget); a search that would read past
// it fails with the budget's error (issue 15 item 1).
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
	res := SearchResult{Path: n.path, Query: query, Matches: []Match{}, FileLimit: f.limits.SearchFileBytes}
	needle := []byte(strings.ToLower(query))
	add := func(m Match) bool {
		if len(res.Matches) == limit {
			res.Truncated = true
			return false
		}
		res.Matches = append(res.Matches, m)
		return true
	}
	// over is why reading a file ended the search early: the request's
	// budget spent or its context done. The search fails with it.
	var over error
	visit := func(e node) bool {
		if bytes.Contains([]byte(strings.ToLower(e.info.Name)), needle) && !add(Match{Path: e.path, Text: e.info.Name}) {
			return false
		}
		if e.info.Kind != KindFile || !e.caps().Has(OpRead) {
			return true
		}
		if e.info.Size > f.limits.SearchFileBytes {
			res.Skipped++
			return true
		}
		more, err := f.searchFile(ctx, e, needle, add)
		over = err
		return more && over == nil
	}
	if root.info.Kind == KindFile {
		visit(root)
		if over != nil {
			return SearchResult{}, over
		}
		return res, nil
	}
	w := walker{fs: f, choose: func(p, _ string) bool { return f.policy.Decide(p).Open.Has(OpSearch) }, visit: visit}
	err = w.walk(ctx, root, maxSearchDepth, "")
	if over != nil {
		return SearchResult{}, over
	}
	if err != nil && !errors.Is(err, errStop) {
		return SearchResult{}, fail(n.path, OpSearch, err)
	}
	return res, nil
}

// sniffBytes is how much of a file decides whether it is text.
const sniffBytes = 8 << 10

// searchFile adds the lines of text file e that contain needle, reading it
// line by line; content that is not UTF-8 is binary and ends the file's
// search. It returns false once add refuses, and the request's budget
// (package budget) when reading the file exceeded it.
func (f *FS) searchFile(ctx context.Context, e node, needle []byte, add func(Match) bool) (bool, error) {
	r, err := e.mount.Provider.(Reader).Open(ctx, e.name)
	if err != nil {
		return true, nil
	}
	defer r.Close()
	// The file may have grown since it was looked at; read no more than
	// the limit all the same.
	m := &metered{r: r, ctx: ctx, budget: budget.FromContext(ctx)}
	br := bufio.NewReader(io.LimitReader(m, f.limits.SearchFileBytes))
	head, _ := br.Peek(sniffBytes)
	if m.err != nil {
		return false, m.err
	}
	if !utf8.Valid(head[:len(head)-partialRune(head)]) {
		return true, nil
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, min(f.limits.SearchFileBytes, 64<<10)+1), int(f.limits.SearchFileBytes)+1)
	for line := 1; sc.Scan(); line++ {
		text := sc.Bytes()
		if !utf8.Valid(text) {
			return true, nil
		}
		if !bytes.Contains(bytes.ToLower(text), needle) {
			continue
		}
		if len(text) > maxSearchLine {
			text = text[:maxSearchLine]
		}
		if !add(Match{Path: e.path, Line: line, Text: strings.ToValidUTF8(string(text), "")}) {
			return false, nil
		}
	}
	if m.err != nil {
		return false, m.err
	}
	return true, nil
}

// metered charges what a search reads to the request's budget, and ends
// the read once the budget is spent or the request's deadline has passed.
type metered struct {
	r      io.Reader
	ctx    context.Context
	budget *budget.Budget
	// err is why reading ended early, kept apart from read errors, which
	// only end the file's search.
	err error
}

func (m *metered) Read(p []byte) (int, error) {
	if err := m.ctx.Err(); err != nil {
		m.err = err
		return 0, err
	}
	n, err := m.r.Read(p)
	if berr := m.budget.Scan(int64(n)); berr != nil {
		m.err = berr
		return n, berr
	}
	return n, err
}
