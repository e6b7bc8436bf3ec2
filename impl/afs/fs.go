package afs

import (
	"context"
	"errors"
	"io"
	"time"
	"unicode/utf8"

	"github.com/conform-mcp/conform/impl/budget"
)

// FS is the host's tree as network clients reach it. Every method takes the
// path as the caller spelled it, canonicalises it, and then decides gate 3
// (policy) and gate 4 (provider) in that order, both before the provider is
// asked whether the path exists (source 5.6), so a closed path never reveals
// whether anything is there.
type FS struct {
	mounts mountTable
	policy *Policy
	limits Limits
}

// Limits bound what one call takes from the host, so that memory never
// follows the size of a file a caller names (issue 8 item 10).
type Limits struct {
	// ReadBytes is the most one read returns; DefaultReadBytes when 0.
	ReadBytes int
	// SearchFileBytes is the largest file a search looks into; larger
	// files are skipped and counted. DefaultSearchFileBytes when 0.
	SearchFileBytes int64
}

// The default limits.
const (
	DefaultReadBytes       = 1 << 20
	DefaultSearchFileBytes = 1 << 20
)

func (l Limits) withDefaults() Limits {
	if l.ReadBytes <= 0 {
		l.ReadBytes = DefaultReadBytes
	}
	if l.SearchFileBytes <= 0 {
		l.SearchFileBytes = DefaultSearchFileBytes
	}
	return l
}

// New returns the tree served by mounts, opened to network clients by the
// networkRead rules and by the mounts declared as overlays, and bounded by
// limits.
func New(mounts []Mount, networkRead []string, limits Limits) (*FS, error) {
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
	return &FS{mounts: t, policy: pol, limits: limits.withDefaults()}, nil
}

// Limits returns the bounds in force.
func (f *FS) Limits() Limits { return f.limits }

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
	var q *QuotaError
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &q):
		return overQuota(p, q)
	case errors.Is(err, ErrNotExist):
		return NotFound(p)
	case errors.Is(err, ErrExist):
		return exists(p)
	case errors.Is(err, ErrIsDir):
		return isDirectory(p, op)
	case errors.Is(err, ErrNotEmpty):
		return notEmpty(p)
	case errors.Is(err, ErrNotRegular):
		return notRegular(p, op)
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

// Chunk is part of a file, afs_read's answer.
type Chunk struct {
	Entry
	// Offset is where Data starts in the file.
	Offset int64
	// Data is the content read.
	Data []byte
	// More says that the file goes on after Data: the rest starts at
	// Offset+len(Data).
	More bool
}

// Read returns up to length bytes of file p from offset; length 0, or one
// above the read limit, means the limit. A chunk that stops before the end
// of the file never ends inside a UTF-8 sequence, so that reading a text
// file chunk by chunk yields text.
func (f *FS) Read(ctx context.Context, p string, offset int64, length int) (Chunk, error) {
	n, err := f.admit(p, OpRead)
	if err != nil {
		return Chunk{}, err
	}
	found, err := f.mounts.lookup(ctx, n.path)
	if err != nil {
		return Chunk{}, fail(n.path, OpRead, err)
	}
	if found.info.Kind == KindDirectory {
		return Chunk{}, isDirectory(n.path, OpRead)
	}
	if length <= 0 || length > f.limits.ReadBytes {
		length = f.limits.ReadBytes
	}
	// The reply may take budget.ReplyFactor bytes for each byte read: hold them
	// of the host's in-flight bound before reading (package budget).
	toRead := int64(length) + 1
	if rest := found.info.Size - max(offset, 0) + 1; rest >= 1 && rest < toRead {
		toRead = rest
	}
	if err := budget.FromContext(ctx).Hold(ctx, budget.ReplyFactor*toRead); err != nil {
		return Chunk{}, err
	}
	data, err := readAt(ctx, found, max(offset, 0), length)
	if err != nil {
		return Chunk{}, fail(n.path, OpRead, err)
	}
	c := Chunk{Entry: entryOf(found), Offset: max(offset, 0), Data: data}
	if len(data) > length {
		c.Data, c.More = data[:length], true
		if cut := partialRune(c.Data); cut < len(c.Data) {
			c.Data = c.Data[:len(c.Data)-cut]
		}
	}
	return c, nil
}

// readAt reads up to length+1 bytes of n from offset: the extra byte tells
// whether the file goes on. The buffer is sized by the file's size when
// that is smaller, so a small file costs a small buffer.
func readAt(ctx context.Context, n node, offset int64, length int) ([]byte, error) {
	r, err := n.mount.Provider.(Reader).Open(ctx, n.name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if _, err := r.Seek(offset, io.SeekStart); err != nil {
		return nil, err
	}
	size := int64(length) + 1
	if rest := n.info.Size - offset + 1; rest >= 1 && rest < size {
		size = rest
	}
	buf := make([]byte, size)
	k, err := io.ReadFull(r, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	return buf[:k], nil
}

// partialRune returns how many bytes at the end of b are the start of a
// UTF-8 sequence that b cuts short (0 when none).
func partialRune(b []byte) int {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-i:]) {
				return 0
			}
			return i
		}
	}
	return 0
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
