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
}

// Listing is afs_list's answer.
type Listing struct {
	Path      string  `json:"path"`
	Entries   []Entry `json:"entries"`
	Truncated bool    `json:"truncated"`
}

// List returns the entries beneath p. Only entries that gate 3 lets network
// clients stat are shown, and only directories it lets them list are
// descended, so a listing never reveals a closed path (source 7.4).
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
	err = f.walk(ctx, root, opts.Depth, func(e node) bool {
		if !f.policy.Decide(e.path).Open.Has(OpStat) {
			return true
		}
		if opts.Pattern != "" {
			if ok, _ := path.Match(opts.Pattern, e.info.Name); !ok {
				return true
			}
		}
		if len(l.Entries) == opts.Limit {
			l.Truncated = true
			return false
		}
		l.Entries = append(l.Entries, entryOf(e))
		return true
	})
	if err != nil && !errors.Is(err, errStop) {
		return Listing{}, fail(n.path, OpList, err)
	}
	return l, nil
}

// walk visits the entries beneath directory dir, depth levels deep, in
// name order, until visit returns false. It descends only into directories
// that gate 3 opens for listing and whose provider lists.
func (f *FS) walk(ctx context.Context, dir node, depth int, visit func(node) bool) error {
	children, err := f.children(ctx, dir)
	if err != nil {
		return err
	}
	for _, c := range children {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !visit(c) {
			return errStop
		}
		if c.info.Kind == KindDirectory && depth > 1 && f.policy.Decide(c.path).Open.Has(OpList) && c.caps().Has(OpList) {
			if err := f.walk(ctx, c, depth-1, visit); err != nil {
				return err
			}
		}
	}
	return nil
}

// errStop ends a walk early; it never leaves this package's walks.
var errStop = errors.New("walk stopped")

func sortNodes(ns []node) {
	slices.SortFunc(ns, func(a, b node) int { return strings.Compare(a.info.Name, b.info.Name) })
}

// children lists directory dir: its provider's entries merged with the
// mount points beneath it.
func (f *FS) children(ctx context.Context, dir node) ([]node, error) {
	var out []node
	seen := map[string]bool{}
	if dir.mount != nil {
		if l, ok := dir.mount.Provider.(Lister); ok {
			infos, err := l.List(ctx, dir.name)
			if err != nil && len(f.mounts.childMounts(dir.path)) == 0 {
				return nil, err
			}
			for _, info := range infos {
				p := join(dir.path, info.Name)
				m, name, _ := f.mounts.of(p)
				if m != dir.mount {
					continue // shadowed by a nested mount, listed below
				}
				seen[info.Name] = true
				out = append(out, node{path: p, mount: m, name: name, info: info})
			}
		}
	}
	for _, name := range f.mounts.childMounts(dir.path) {
		if seen[name] {
			continue
		}
		c, err := f.mounts.lookup(ctx, join(dir.path, name))
		if err != nil {
			continue
		}
		out = append(out, c)
	}
	sortNodes(out)
	return out, nil
}
