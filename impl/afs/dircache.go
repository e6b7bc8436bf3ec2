package afs

import (
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// dirCache keeps the sorted names of recently listed directories, so that a
// page of a large directory costs a stat of the directory and of the
// entries shown rather than a read and sort of every name (issue 9).
//
// A cached listing is used only while the directory is the same one (same
// device and inode) with the same modification time and size: adding,
// removing or renaming an entry changes the modification time. A directory
// modified less than racyWindow before it was read is not cached, since a
// second change within the file system's timestamp granularity would leave
// the time unchanged (the "racy" case of git's index).
type dirCache struct {
	mu    sync.Mutex
	dirs  map[string]cachedDir
	names int // names held, at most maxCachedNames
}

type cachedDir struct {
	info  fs.FileInfo
	names []string
}

const (
	racyWindow = 2 * time.Second
	// minCachedNames: smaller directories are cheap to read again.
	minCachedNames = 256
	// maxCachedNames bounds the memory the cache holds (about 64 bytes a
	// name).
	maxCachedNames = 1 << 20
)

// get returns the cached names of the directory that info describes.
func (c *dirCache) get(name string, info fs.FileInfo) ([]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.dirs[name]
	if !ok || !os.SameFile(d.info, info) || !d.info.ModTime().Equal(info.ModTime()) || d.info.Size() != info.Size() {
		return nil, false
	}
	return d.names, true
}

// put keeps names, read at readAt from the directory info describes (as
// stat'ed before the read), when it is worth keeping and safe to trust.
func (c *dirCache) put(name string, info fs.FileInfo, names []string, readAt time.Time) {
	if len(names) < minCachedNames || len(names) > maxCachedNames || !info.ModTime().Before(readAt.Add(-racyWindow)) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirs == nil {
		c.dirs = map[string]cachedDir{}
	}
	if old, ok := c.dirs[name]; ok {
		c.names -= len(old.names)
		delete(c.dirs, name)
	}
	// Evict arbitrary entries (map order) until the new one fits.
	for k, d := range c.dirs {
		if c.names+len(names) <= maxCachedNames {
			break
		}
		c.names -= len(d.names)
		delete(c.dirs, k)
	}
	c.dirs[name] = cachedDir{info: info, names: names}
	c.names += len(names)
}

// readNames reads, filters and sorts the names of open directory f.
func readNames(f *os.File) ([]string, error) {
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	names = slices.DeleteFunc(names, func(n string) bool { return strings.HasPrefix(n, tempPrefix) })
	slices.Sort(names)
	return slices.Clip(names), nil
}
