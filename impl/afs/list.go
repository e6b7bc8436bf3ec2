package afs

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"
)

// Bounds of a listing, so a deep or wide tree cannot make one call huge.
const (
	DefaultListLimit = 1000
	MaxListLimit     = 10000
	MaxListDepth     = 32
)

// ListOptions shape a listing.
type ListOptions struct {
	// Depth is how many levels below the path to descend (1: children only).
	Depth int
	// Pattern, when set, keeps entries whose name matches it (path.Match);
	// directories that do not match are still descended.
	Pattern string
	// Limit is the most entries returned.
	Limit int
	// Cursor, when set, is the path of the last entry of the previous page:
	// the listing starts after it.
	Cursor string
}

// Listing is afs_list's answer.
type Listing struct {
	Path      string  `json:"path"`
	Entries   []Entry `json:"entries"`
	Truncated bool    `json:"truncated"`
	// NextCursor, when the listing is truncated, is the Cursor that asks
	// for the next page.
	NextCursor string `json:"next_cursor,omitempty"`
}

// List returns the entries beneath p, in depth-first order with the
// children of each directory by name. Only entries that gate 3 lets network
// clients stat are shown, and only directories it lets them list are
// descended, so a listing never reveals a closed path (source 7.4).
//
// It costs what it returns: names are read, sorted and filtered first, and
// only the entries shown (and one more, to know whether the listing is
// truncated) are looked at (issue 9).
func (f *FS) List(ctx context.Context, p string, opts ListOptions) (Listing, error) {
	n, err := f.admit(p, OpList)
	if err != nil {
		return Listing{}, err
	}
	root, err := f.mounts.lookup(ctx, n.path)
	if err != nil {
		return Listing{}, fail(n.path, OpList, err)
	}
	l := Listing{Path: n.path, Entries: []Entry{}}
	if root.info.Kind == KindFile {
		l.Entries = append(l.Entries, entryOf(root))
		return l, nil
	}
	if opts.Depth <= 0 {
		opts.Depth = 1
	}
	if opts.Limit <= 0 {
		opts.Limit = DefaultListLimit
	}
	w := walker{fs: f, depth: opts.Depth, cursor: opts.Cursor}
	w.choose = func(p, name string) bool {
		if !f.policy.Decide(p).Open.Has(OpStat) {
			return false
		}
		ok, _ := path.Match(opts.Pattern, name)
		return opts.Pattern == "" || ok
	}
	w.visit = func(e node) bool {
		if len(l.Entries) == opts.Limit {
			l.Truncated = true
			l.NextCursor = l.Entries[len(l.Entries)-1].Path
			return false
		}
		l.Entries = append(l.Entries, entryOf(e))
		return true
	}
	if err := w.walk(ctx, root, opts.Depth, opts.Cursor); err != nil && !errors.Is(err, errStop) {
		return Listing{}, fail(n.path, OpList, err)
	}
	return l, nil
}

// walker visits the entries beneath a directory in depth-first order, the
// children of each directory by name. It looks at (stats) an entry only
// when choose picks it for visit, or when it may have to descend into it.
type walker struct {
	fs    *FS
	depth int
	// cursor, when set, is a path: the walk starts right after it.
	cursor string
	// choose says, from the path and name alone, whether visit sees the
	// entry.
	choose func(p, name string) bool
	// visit receives each chosen entry that exists; false ends the walk.
	visit func(node) bool
}

// errStop ends a walk early; it never leaves this package's walks.
var errStop = errors.New("walk stopped")

// walk visits dir's children, descending depth-1 more levels into the
// directories gate 3 opens for listing and whose provider lists. after,
// when within dir, is the cursor still to be passed.
func (w *walker) walk(ctx context.Context, dir node, depth int, after string) error {
	names, err := w.fs.names(ctx, dir)
	if err != nil {
		return err
	}
	start := 0
	if after != "" && after != dir.path && Within(after, dir.path) {
		first, _, _ := strings.Cut(strings.TrimPrefix(after[len(dir.path):], "/"), "/")
		start, _ = slices.BinarySearch(names, first)
	}
	for _, name := range names[start:] {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := join(dir.path, name)
		// Before the cursor's own entry comes nothing; at it, only what
		// lies beneath it is left to show.
		passed := after == "" || !Within(after, p)
		chosen := passed && w.choose(p, name)
		descend := depth > 1 && w.fs.policy.Decide(p).Open.Has(OpList)
		if !chosen && !descend {
			continue
		}
		c, err := w.fs.mounts.lookup(ctx, p)
		if err != nil {
			continue
		}
		if chosen && !w.visit(c) {
			return errStop
		}
		if descend && c.info.Kind == KindDirectory && c.caps().Has(OpList) {
			next := ""
			if !passed && after != p {
				next = after
			}
			if err := w.walk(ctx, c, depth-1, next); err != nil {
				return err
			}
		}
	}
	return nil
}

// names returns the names of directory dir's children, sorted: its
// provider's names merged with the mount points beneath it. A name a nested
// mount shadows appears once, as that mount.
func (f *FS) names(ctx context.Context, dir node) ([]string, error) {
	mounted := f.mounts.childMounts(dir.path)
	var names []string
	if dir.mount != nil {
		if l, ok := dir.mount.Provider.(Lister); ok {
			got, err := l.Names(ctx, dir.name)
			if err != nil && len(mounted) == 0 {
				return nil, err
			}
			names = got
		}
	}
	if len(mounted) == 0 {
		return names, nil
	}
	all := append(slices.Clone(names), mounted...)
	slices.Sort(all)
	return slices.Compact(all), nil
}
