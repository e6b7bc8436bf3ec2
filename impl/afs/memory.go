package afs

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// Memory is an in-memory tree of files. Directories exist implicitly as the
// ancestors of files, or explicitly once written into or listed as empty.
type Memory struct {
	mu    sync.RWMutex
	files map[string]memFile // canonical relative path -> file
	dirs  map[string]time.Time
	// kids indexes each directory's children by name, so that listing a
	// directory costs its own size, not the whole tree's.
	kids map[string]map[string]struct{}
	now  func() time.Time
}

// memFile is one file. Its data is never changed in place (a write stores
// a new slice), so an open reader can share it.
type memFile struct {
	data     []byte
	modified time.Time
}

// NewMemory returns a tree holding files, keyed by path relative to the
// mount ("readme.md", "docs/a.md" or "/docs/a.md"), all dated now.
func NewMemory(files map[string]string, now func() time.Time) (*Memory, error) {
	m := &Memory{files: map[string]memFile{}, dirs: map[string]time.Time{"/": now()}, kids: map[string]map[string]struct{}{}, now: now}
	for name, content := range files {
		p, err := Canonical("/" + strings.TrimPrefix(name, "/"))
		if err != nil {
			return nil, fmt.Errorf("memory file %q: %w", name, err)
		}
		if p == "/" {
			return nil, fmt.Errorf("memory file %q: a file needs a name", name)
		}
		m.files[p] = memFile{data: []byte(content), modified: now()}
		m.link(p)
		m.addParents(p)
	}
	for p := range m.files {
		if _, clash := m.dirs[p]; clash {
			return nil, fmt.Errorf("memory file %q: is also a directory", p)
		}
	}
	return m, nil
}

func (m *Memory) addParents(p string) {
	for dir := parent(p); ; dir = parent(dir) {
		if _, ok := m.dirs[dir]; !ok {
			m.dirs[dir] = m.now()
			m.link(dir)
		}
		if dir == "/" {
			return
		}
	}
}

// link records p as a child of its directory; unlink forgets it.
func (m *Memory) link(p string) {
	if p == "/" {
		return
	}
	dir := parent(p)
	if m.kids[dir] == nil {
		m.kids[dir] = map[string]struct{}{}
	}
	m.kids[dir][base(p)] = struct{}{}
}

func (m *Memory) unlink(p string) {
	dir := parent(p)
	delete(m.kids[dir], base(p))
	if len(m.kids[dir]) == 0 {
		delete(m.kids, dir)
	}
}

// parent returns the directory holding canonical p ("/" for "/").
func parent(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

func base(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// String names the provider for afs_explain.
func (m *Memory) String() string { return "in-memory tree" }

// Stat implements Provider.
func (m *Memory) Stat(_ context.Context, name string) (Info, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.stat(name)
}

func (m *Memory) stat(name string) (Info, error) {
	if f, ok := m.files[name]; ok {
		return Info{Name: base(name), Kind: KindFile, Size: int64(len(f.data)), Modified: f.modified}, nil
	}
	if t, ok := m.dirs[name]; ok {
		return Info{Name: base(name), Kind: KindDirectory, Modified: t}, nil
	}
	return Info{}, ErrNotExist
}

// Names implements Lister.
func (m *Memory) Names(_ context.Context, name string) ([]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if _, ok := m.dirs[name]; !ok {
		return nil, ErrNotExist
	}
	return slices.Sorted(maps.Keys(m.kids[name])), nil
}

// Open implements Reader.
func (m *Memory) Open(_ context.Context, name string) (io.ReadSeekCloser, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if f, ok := m.files[name]; ok {
		return memReader{bytes.NewReader(f.data)}, nil
	}
	if _, ok := m.dirs[name]; ok {
		return nil, ErrIsDir
	}
	return nil, ErrNotExist
}

// memReader is an open memory file; closing it has nothing to release.
type memReader struct{ *bytes.Reader }

func (memReader) Close() error { return nil }

// Write implements Writer.
func (m *Memory) Write(_ context.Context, name string, data []byte, mode WriteMode) (Info, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.dirs[name]; ok {
		return Info{}, ErrIsDir
	}
	for dir := parent(name); dir != "/"; dir = parent(dir) {
		if _, ok := m.files[dir]; ok {
			return Info{}, fmt.Errorf("%s: %w", dir, ErrNotExist)
		}
	}
	old, found := m.files[name]
	switch {
	case mode == Create && found:
		return Info{}, ErrExist
	case mode == Append:
		data = append(slices.Clone(old.data), data...)
	default:
		data = slices.Clone(data)
	}
	f := memFile{data: data, modified: m.now()}
	m.files[name] = f
	m.link(name)
	m.addParents(name)
	return Info{Name: base(name), Kind: KindFile, Size: int64(len(data)), Modified: f.modified}, nil
}

// Delete implements Deleter.
func (m *Memory) Delete(_ context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[name]; ok {
		delete(m.files, name)
		m.unlink(name)
		return nil
	}
	if _, ok := m.dirs[name]; !ok {
		return ErrNotExist
	}
	if len(m.kids[name]) > 0 {
		return ErrNotEmpty
	}
	delete(m.dirs, name)
	m.unlink(name)
	return nil
}
