package afs

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
)

// Mount binds a path prefix to a provider.
type Mount struct {
	// Path is the canonical prefix the provider serves.
	Path string
	// Provider serves the paths beneath Path.
	Provider Provider
	// Overlay declares the mount a resolver overlay: gate 3 opens every
	// operation beneath Path to network clients (source 5.7).
	Overlay bool
}

// virtualCaps are the operations of a directory that exists only because
// mounts lie beneath it (such as "/"): it can be looked at, never changed.
var virtualCaps = SetOf(OpList, OpStat, OpSearch, OpExplain)

// mountTable finds the mount serving a path: the longest prefix wins, so a
// mount nested in another (an overlay inside an overlay) shadows its parent.
type mountTable []Mount

func newMountTable(mounts []Mount) (mountTable, error) {
	t := slices.Clone(mounts)
	for i, m := range t {
		if c, err := Canonical(m.Path); err != nil || c != m.Path {
			return nil, fmt.Errorf("mount %q: not a canonical path", m.Path)
		}
		if m.Provider == nil {
			return nil, fmt.Errorf("mount %q: no provider", m.Path)
		}
		for _, other := range t[:i] {
			if other.Path == m.Path {
				return nil, fmt.Errorf("mount %q: declared twice", m.Path)
			}
		}
	}
	slices.SortFunc(t, func(a, b Mount) int { return cmp.Compare(len(b.Path), len(a.Path)) })
	return t, nil
}

// of returns the mount serving canonical p and p relative to it.
func (t mountTable) of(p string) (*Mount, string, bool) {
	for i := range t {
		if Within(p, t[i].Path) {
			name := strings.TrimPrefix(p, t[i].Path)
			if t[i].Path == "/" {
				name = p
			}
			if name == "" {
				name = "/"
			}
			return &t[i], name, true
		}
	}
	return nil, "", false
}

// childMounts returns the names directly under dir that lead to a mount
// point deeper than dir, so listings show mounts as directories.
func (t mountTable) childMounts(dir string) []string {
	var names []string
	for _, m := range t {
		if m.Path == dir || !Within(m.Path, dir) {
			continue
		}
		rest := strings.TrimPrefix(strings.TrimPrefix(m.Path, dir), "/")
		name, _, _ := strings.Cut(rest, "/")
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// node is what a canonical path resolves to.
type node struct {
	path  string
	mount *Mount // nil for a virtual directory
	name  string // path relative to mount
	info  Info
}

// caps returns the operations available at n.
func (n node) caps() OpSet {
	if n.mount == nil {
		return virtualCaps
	}
	return Capabilities(n.mount.Provider)
}

// place returns where p would live without checking that it exists: its
// mount, or a virtual directory, or nothing at all.
func (t mountTable) place(p string) (node, bool) {
	if m, name, ok := t.of(p); ok {
		return node{path: p, mount: m, name: name}, true
	}
	if len(t.childMounts(p)) > 0 {
		return node{path: p, info: Info{Name: base(p), Kind: KindDirectory}}, true
	}
	return node{}, false
}

// lookup resolves p to an existing entry. A path its provider lacks but
// under which a mount lies is a directory all the same.
func (t mountTable) lookup(ctx context.Context, p string) (node, error) {
	n, ok := t.place(p)
	if !ok {
		return node{}, ErrNotExist
	}
	if n.mount == nil {
		return n, nil
	}
	info, err := n.mount.Provider.Stat(ctx, n.name)
	if err != nil {
		if len(t.childMounts(p)) > 0 {
			n.info = Info{Name: base(p), Kind: KindDirectory}
			return n, nil
		}
		return node{}, err
	}
	info.Name = base(p)
	n.info = info
	return n, nil
}
