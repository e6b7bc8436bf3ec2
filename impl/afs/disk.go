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
	"strings"
	"sync"
	"syscall"
	"time"
)

// Disk is a directory on disk. Every access goes through an os.Root, so no
// name, symlink included, reaches outside the directory. Create and
// overwrite go to a temporary file that is renamed (or, for create, linked)
// into place, so a reader never sees half of what they write. Append writes
// in place: a reader may see the file while the data is being added, and a
// write that fails is cut off again, so no part of it is kept. Writes never
// replace what the host's operator put there that is not a regular file: a
// symlink, a device, a named pipe (issue 8 item 11).
//
// Files and directories are created as any Unix program creates them,
// 0666 and 0777 less the process umask; an overwrite keeps the mode of the
// file it replaces.
type Disk struct {
	root  *os.Root
	locks pathLocks
	cache dirCache

	// quota bounds what writes may add (Limit); used counts the bytes of
	// the regular files under root, as this host's writes and deletes
	// change them.
	quotaMu sync.Mutex
	quota   Quota
	used    int64
}

// Quota bounds what writes to a Disk may take (issue 26 item 5: one member
// filled the data volume at 38 MB/s, after which registrations failed). A
// zero field does not bound.
type Quota struct {
	// FileBytes is the largest a file may grow to.
	FileBytes int64
	// TotalBytes is the most all the files together may hold.
	TotalBytes int64
	// FreeBytes is what a write must leave free on the file system, so that
	// the host's own records (the OAuth store) still have room.
	FreeBytes int64
}

// tempPrefix marks files a write has not yet renamed into place; listings
// hide them.
const tempPrefix = ".afs-write-"

// Modes asked for when creating; the umask takes its share.
const (
	dirMode  = 0o777
	fileMode = 0o666
)

// NewDisk opens dir, creating it if needed.
func NewDisk(dir string) (*Disk, error) {
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return nil, fmt.Errorf("disk provider: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("disk provider: %w", err)
	}
	return &Disk{root: root}, nil
}

// RemoveUnfinished removes the temporary files of writes that never
// finished, which a crash (kill -9 between writeTemp and the rename) leaves
// behind (issue 26 item 7), and returns how many it removed. It removes only
// regular files whose name is tempPrefix followed by what writeTemp draws
// (rand.Text: 26 letters of the base32 alphabet); directories, links and every
// other name stay. The host calls it at start-up, before any write runs.
func (d *Disk) RemoveUnfinished() (int, error) {
	removed := 0
	err := fs.WalkDir(d.root.FS(), ".", func(name string, e fs.DirEntry, err error) error {
		if err != nil {
			// An unreadable directory holds nothing this host wrote.
			return nil
		}
		if !e.Type().IsRegular() || !unfinished(e.Name()) {
			return nil
		}
		if err := d.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove unfinished write %s: %w", name, err)
		}
		removed++
		return nil
	})
	return removed, err
}

// Limit holds later writes to q. It counts the bytes the directory's
// regular files hold now; afterwards the count follows this host's writes
// and deletes, not changes the operator makes beside it.
func (d *Disk) Limit(q Quota) error {
	var used int64
	err := fs.WalkDir(d.root.FS(), ".", func(name string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return nil
		}
		if fi, err := e.Info(); err == nil {
			used += fi.Size()
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("disk provider: count the files' size: %w", err)
	}
	d.quotaMu.Lock()
	defer d.quotaMu.Unlock()
	d.quota, d.used = q, used
	return nil
}

// reserve admits a write of n bytes that leaves its file size bytes long
// and the directory's files grow bytes larger (less when it replaces more),
// counting grow as used. release gives it back when the write fails.
func (d *Disk) reserve(n, size, grow int64) error {
	d.quotaMu.Lock()
	defer d.quotaMu.Unlock()
	q := d.quota
	if q.FileBytes > 0 && size > q.FileBytes {
		return &QuotaError{Why: fmt.Sprintf("a file may hold at most %d bytes, and this write would make it %d", q.FileBytes, size)}
	}
	if q.TotalBytes > 0 && grow > 0 && d.used+grow > q.TotalBytes {
		return &QuotaError{Why: fmt.Sprintf("the overlay may hold at most %d bytes in all; %d are in use and this write adds %d", q.TotalBytes, d.used, grow)}
	}
	if q.FreeBytes > 0 {
		var st syscall.Statfs_t
		if err := syscall.Statfs(d.root.Name(), &st); err != nil {
			return fmt.Errorf("disk provider: free space: %w", err)
		}
		free := int64(st.Bavail) * st.Bsize
		if free-n < q.FreeBytes {
			return &QuotaError{Why: fmt.Sprintf("the host keeps %d bytes of its disk free for its own records, and %d are free", q.FreeBytes, max(free, 0))}
		}
	}
	d.used += grow
	return nil
}

func (d *Disk) release(grow int64) {
	d.quotaMu.Lock()
	defer d.quotaMu.Unlock()
	d.used -= grow
}

// unfinished reports whether name is one writeTemp makes.
func unfinished(name string) bool {
	suffix, ok := strings.CutPrefix(name, tempPrefix)
	if !ok || len(suffix) != 26 {
		return false
	}
	return strings.Trim(suffix, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") == ""
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

// Names implements Lister. Names of entries a Stat would not show (a
// symlink leading outside, a device) are returned all the same; the FS
// stats only what it returns, and leaves out what fails.
func (d *Disk) Names(_ context.Context, name string) ([]string, error) {
	f, err := d.root.Open(rel(name))
	if err != nil {
		return nil, notExist(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, ErrNotExist
	}
	if names, ok := d.cache.get(name, info); ok {
		return names, nil
	}
	readAt := time.Now()
	names, err := readNames(f)
	if err != nil {
		return nil, err
	}
	d.cache.put(name, info, names, readAt)
	return names, nil
}

// Open implements Reader. The file is opened without blocking and checked
// afterwards, so a named pipe put in the tree never stalls a read.
func (d *Disk) Open(_ context.Context, name string) (io.ReadSeekCloser, error) {
	f, err := d.root.OpenFile(rel(name), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, notExist(err)
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		f.Close()
		return nil, err
	case fi.IsDir():
		f.Close()
		return nil, ErrIsDir
	case !fi.Mode().IsRegular():
		f.Close()
		return nil, ErrNotExist
	}
	return f, nil
}

// Write implements Writer. Writers of the same file take turns; writers of
// different files do not wait for each other.
func (d *Disk) Write(ctx context.Context, name string, data []byte, mode WriteMode) (Info, error) {
	unlock := d.locks.lock(name)
	defer unlock()
	target := rel(name)
	dir := path.Dir(target)
	if err := d.root.MkdirAll(dir, dirMode); err != nil {
		return Info{}, notExist(err)
	}
	// Lstat, not Stat: what matters is the entry itself, not what a link
	// leads to.
	old, err := d.root.Lstat(target)
	found := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return Info{}, notExist(err)
	case found && old.IsDir():
		return Info{}, ErrIsDir
	case found && mode == Create:
		return Info{}, ErrExist
	case found && !old.Mode().IsRegular():
		return Info{}, ErrNotRegular
	}
	n := int64(len(data))
	size, grow := n, n
	switch {
	case found && mode == Append:
		size = old.Size() + n
	case found:
		grow = n - old.Size()
	}
	if err := d.reserve(n, size, grow); err != nil {
		return Info{}, err
	}
	switch {
	case !found:
		err = d.create(target, data)
	case mode == Append:
		err = d.append(target, data)
	default:
		err = d.replace(target, data, old.Mode().Perm())
	}
	if err != nil {
		d.release(grow)
		return Info{}, err
	}
	return d.Stat(ctx, name)
}

// create puts a new file at target and fails with ErrExist if anything
// is there by then: link(2) never replaces an entry.
func (d *Disk) create(target string, data []byte) error {
	tmp, err := d.writeTemp(target, data, fileMode)
	if err != nil {
		return err
	}
	defer func() { _ = d.root.Remove(tmp) }()
	if err := d.root.Link(tmp, target); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return ErrExist
		}
		return notExist(err)
	}
	return nil
}

// replace renames a new file over the regular file at target.
func (d *Disk) replace(target string, data []byte, perm fs.FileMode) error {
	tmp, err := d.writeTemp(target, data, perm)
	if err != nil {
		return err
	}
	if err := d.root.Rename(tmp, target); err != nil {
		_ = d.root.Remove(tmp)
		return notExist(err)
	}
	return nil
}

// append adds data at the end of the regular file at target in place: the
// file is not read, and other files' writers do not wait. O_NONBLOCK makes
// a named pipe swapped in since the Lstat fail instead of waiting. A write
// that fails part way (a full disk, a file size limit) is truncated back to
// the size the file had, so the call either adds all of data or none of it;
// the path's lock keeps other writers of this file out meanwhile.
func (d *Disk) append(target string, data []byte) error {
	f, err := d.root.OpenFile(target, os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0)
	if err != nil {
		return notExist(err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = ErrNotRegular
	}
	if err != nil {
		_ = f.Close()
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		if terr := f.Truncate(fi.Size()); terr == nil {
			_ = f.Sync()
		} else {
			err = fmt.Errorf("%w; and cutting off the partial write failed: %v", err, terr)
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeTemp writes data to a new temporary file next to target.
func (d *Disk) writeTemp(target string, data []byte, perm fs.FileMode) (string, error) {
	name := path.Join(path.Dir(target), tempPrefix+rand.Text())
	f, err := d.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return "", notExist(err)
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
		return "", werr
	}
	return name, nil
}

// Delete implements Deleter.
func (d *Disk) Delete(ctx context.Context, name string) error {
	unlock := d.locks.lock(name)
	defer unlock()
	// Lstat, as a write does: a symlink, device or named pipe the operator
	// placed stays, for delete as for write.
	if fi, err := d.root.Lstat(rel(name)); err == nil && !fi.IsDir() && !fi.Mode().IsRegular() {
		return ErrNotRegular
	}
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
	err = d.root.Remove(rel(name))
	if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
		return ErrNotEmpty
	}
	if err == nil && info.Kind == KindFile {
		d.release(info.Size)
	}
	return notExist(err)
}
