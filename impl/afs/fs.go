package afs

import (
	"context"
	"errors"
	"time"
)

// FS is the host's tree as network clients reach it. Every method takes the
// path as the caller spelled it, canonicalises it, and then decides gate 3
// (policy) and gate 4 (provider) in that order, both before the provider is
// asked whether the path exists (source 5.6), so a closed path never reveals
// whether anything is there.
type FS struct {
	mounts mountTable
	policy *Policy
}

// New returns the tree served by mounts, opened to network clients by the
// networkRead rules and by the mounts declared as overlays.
func New(mounts []Mount, networkRead []string) (*FS, error) {
	t, err := newMountTable(mounts)
	if err != nil {
		return nil, err
	}
	var overlays []string
	for _, m := range t {
		if m.Overlay {
			overlays = append(overlays, m.Path)
		}
	}
	pol, err := NewPolicy(networkRead, overlays)
	if err != nil {
		return nil, err
	}
	return &FS{mounts: t, policy: pol}, nil
}

// Entry is one path in a result.
type Entry struct {
	Path     string    `json:"path"`
	Name     string    `json:"name"`
	Kind     Kind      `json:"kind"`
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified,omitzero"`
}

func entryOf(n node) Entry {
	return Entry{Path: n.path, Name: n.info.Name, Kind: n.info.Kind, Size: n.info.Size, Modified: n.info.Modified}
}

// admit runs the gates for op at p and returns where the canonical path
// would live. A path no mount could ever serve is AFS_NOT_FOUND, but only
// once gate 3 has opened it.
func (f *FS) admit(p string, op Operation) (node, error) {
	c, err := Canonical(p)
	if err != nil {
		return node{}, err
	}
	// Source 5.7: gate 3 is decided by the host's declaration alone.
	if !f.policy.Decide(c).Open.Has(op) {
		return node{}, Forbidden(c, op)
	}
	n, ok := f.mounts.place(c)
	if !ok {
		return node{}, NotFound(c)
	}
	// Source 7.5 step 5: gate 4 is the provider's capability.
	if !n.caps().Has(op) {
		return node{}, NotSupported(c, op)
	}
	return n, nil
}

// fail turns a provider error into the in-call error about p.
func fail(p string, op Operation, err error) error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, ErrNotExist):
		return NotFound(p)
	case errors.Is(err, ErrExist):
		return exists(p)
	case errors.Is(err, ErrIsDir):
		return isDirectory(p, op)
	case errors.Is(err, ErrNotEmpty):
		return notEmpty(p)
	}
	return ioFailure(p, op)
}

// Status is afs_stat's answer.
type Status struct {
	Entry
	// Capabilities are the operations the provider implements (gate 4).
	Capabilities []Operation `json:"capabilities"`
	// Network are the operations gate 3 opens to network clients here.
	Network []Operation `json:"network"`
	// Mount is the prefix of the mount serving the path ("" when none).
	Mount string `json:"mount,omitempty"`
}

// Stat describes p.
func (f *FS) Stat(ctx context.Context, p string) (Status, error) {
	n, err := f.admit(p, OpStat)
	if err != nil {
		return Status{}, err
	}
	found, err := f.mounts.lookup(ctx, n.path)
	if err != nil {
		return Status{}, fail(n.path, OpStat, err)
	}
	st := Status{Entry: entryOf(found), Capabilities: found.caps().List(), Network: f.policy.Decide(found.path).Open.List()}
	if found.mount != nil {
		st.Mount = found.mount.Path
	}
	return st, nil
}

// Read returns the content of file p.
func (f *FS) Read(ctx context.Context, p string) (Entry, []byte, error) {
	n, err := f.admit(p, OpRead)
	if err != nil {
		return Entry{}, nil, err
	}
	found, err := f.mounts.lookup(ctx, n.path)
	if err != nil {
		return Entry{}, nil, fail(n.path, OpRead, err)
	}
	if found.info.Kind == KindDirectory {
		return Entry{}, nil, isDirectory(n.path, OpRead)
	}
	data, err := found.mount.Provider.(Reader).Read(ctx, found.name)
	if err != nil {
		return Entry{}, nil, fail(n.path, OpRead, err)
	}
	return entryOf(found), data, nil
}

// Write stores data at p as mode says.
func (f *FS) Write(ctx context.Context, p string, data []byte, mode WriteMode) (Entry, error) {
	n, err := f.admit(p, OpWrite)
	if err != nil {
		return Entry{}, err
	}
	if len(f.mounts.childMounts(n.path)) > 0 || n.name == "/" {
		return Entry{}, isDirectory(n.path, OpWrite)
	}
	info, err := n.mount.Provider.(Writer).Write(ctx, n.name, data, mode)
	if err != nil {
		return Entry{}, fail(n.path, OpWrite, err)
	}
	n.info = info
	n.info.Name = base(n.path)
	return entryOf(n), nil
}

// Delete removes file or empty directory p. The root of a mount, and a
// directory a mount lies beneath, stay: they belong to the host's
// declaration, not to the provider.
func (f *FS) Delete(ctx context.Context, p string) error {
	n, err := f.admit(p, OpDelete)
	if err != nil {
		return err
	}
	if len(f.mounts.childMounts(n.path)) > 0 || n.name == "/" {
		return mountPoint(n.path, OpDelete)
	}
	if err := n.mount.Provider.(Deleter).Delete(ctx, n.name); err != nil {
		return fail(n.path, OpDelete, err)
	}
	return nil
}

// Exec runs p with args and returns its output.
func (f *FS) Exec(ctx context.Context, p string, args []string) (string, error) {
	n, err := f.admit(p, OpExec)
	if err != nil {
		return "", err
	}
	out, err := n.mount.Provider.(Executor).Exec(ctx, n.name, args)
	if err != nil {
		return "", fail(n.path, OpExec, err)
	}
	return out, nil
}
