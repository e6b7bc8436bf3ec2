package afs

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// Disk is a directory on disk. Every access goes through an os.Root, so no
// name, symlink included, reaches outside the directory; writes go to a
// temporary file that is renamed into place, so a reader never sees half a
// file.
type Disk struct {
	root *os.Root
	// mu serialises writers so that create's existence check and append's
	// read-modify-write are not raced by another writer.
	mu sync.Mutex
}

// tempPrefix marks files a write has not yet renamed into place; listings
// hide them.
const tempPrefix = ".afs-write-"

// NewDisk opens dir, creating it if needed.
func NewDisk(dir string) (*Disk, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("disk provider: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("disk provider: %w", err)
	}
	return &Disk{root: root}, nil
}

// Close releases the directory.
func (d *Disk) Close() error { return d.root.Close() }

// String names the provider for afs_explain. The directory itself is not
// named: it is the host's business, not a network client's.
func (d *Disk) String() string { return "directory on disk" }

// rel turns a mount-relative canonical name into an os.Root name.
func rel(name string) string {
	if name == "/" {
		return "."
	}
	return name[1:]
}

func infoOf(name string, fi fs.FileInfo) Info {
	if fi.IsDir() {
		return Info{Name: base(name), Kind: KindDirectory, Modified: fi.ModTime()}
	}
	return Info{Name: base(name), Kind: KindFile, Size: fi.Size(), Modified: fi.ModTime()}
}

// notExist maps every "cannot reach it" error to ErrNotExist. Besides a
// missing file that is os.Root's own refusal, which it reports as a
// PathError that wraps no system errno (a symlink or ".." leading outside):
// from the caller's side there is nothing there.
func notExist(err error) error {
	var pe *fs.PathError
	var errno syscall.Errno
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist),
		errors.As(err, &pe) && !errors.As(pe.Err, &errno):
		return fmt.Errorf("%w: %w", ErrNotExist, err)
	}
	return err
}

// Stat implements Provider.
func (d *Disk) Stat(_ context.Context, name string) (Info, error) {
	fi, err := d.root.Stat(rel(name))
	if err != nil {
		return Info{}, notExist(err)
	}
	if !fi.Mode().IsRegular() && !fi.IsDir() {
		return Info{}, ErrNotExist
	}
	return infoOf(name, fi), nil
}

// List implements Lister. Entries that cannot be stat'ed through the root
// (a symlink leading outside, a device) are left out.
func (d *Disk) List(ctx context.Context, name string) ([]Info, error) {
	info, err := d.Stat(ctx, name)
	if err != nil {
		return nil, err
	}
	if info.Kind == KindFile {
		return []Info{info}, nil
	}
	f, err := d.root.Open(rel(name))
	if err != nil {
		return nil, notExist(err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	out := make([]Info, 0, len(names))
	for _, n := range names {
		if strings.HasPrefix(n, tempPrefix) {
			continue
		}
		child, err := d.Stat(ctx, join(name, n))
		if err != nil {
			continue
		}
		out = append(out, child)
	}
	return out, nil
}

// Read implements Reader.
func (d *Disk) Read(ctx context.Context, name string) ([]byte, error) {
	info, err := d.Stat(ctx, name)
	if err != nil {
		return nil, err
	}
	if info.Kind == KindDirectory {
		return nil, ErrIsDir
	}
	data, err := d.root.ReadFile(rel(name))
	if err != nil {
		return nil, notExist(err)
	}
	return data, nil
}

// Write implements Writer: the new content goes to a temporary file in the
// same directory, which is synced and renamed over the target.
func (d *Disk) Write(ctx context.Context, name string, data []byte, mode WriteMode) (Info, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	target := rel(name)
	dir := path.Dir(target)
	if err := d.root.MkdirAll(dir, 0o755); err != nil {
		return Info{}, notExist(err)
	}
	old, err := d.Stat(ctx, name)
	found := err == nil
	switch {
	case err != nil && !errors.Is(err, ErrNotExist):
		return Info{}, err
	case found && old.Kind == KindDirectory:
		return Info{}, ErrIsDir
	case found && mode == Create:
		return Info{}, ErrExist
	case found && mode == Append:
		prev, err := d.root.ReadFile(target)
		if err != nil {
			return Info{}, notExist(err)
		}
		data = append(prev, data...)
	}
	tmp := path.Join(dir, tempPrefix+rand.Text())
	if err := d.writeFile(tmp, data); err != nil {
		return Info{}, err
	}
	if err := d.root.Rename(tmp, target); err != nil {
		_ = d.root.Remove(tmp)
		return Info{}, notExist(err)
	}
	return d.Stat(ctx, name)
}

func (d *Disk) writeFile(name string, data []byte) error {
	f, err := d.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return notExist(err)
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = d.root.Remove(name)
	}
	return werr
}

// Delete implements Deleter.
func (d *Disk) Delete(ctx context.Context, name string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	info, err := d.Stat(ctx, name)
	if err != nil {
		return err
	}
	if info.Kind == KindDirectory {
		f, err := d.root.Open(rel(name))
		if err != nil {
			return notExist(err)
		}
		names, err := f.Readdirnames(1)
		f.Close()
		if len(names) > 0 {
			return ErrNotEmpty
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
	}
	return notExist(d.root.Remove(rel(name)))
}
