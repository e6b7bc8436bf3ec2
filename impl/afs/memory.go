package afs

import (
	"context"
	"fmt"
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
	now   func() time.Time
}

type memFile struct {
	data     []byte
	modified time.Time
}

// NewMemory returns a tree holding files, keyed by path relative to the
// mount ("readme.md", "docs/a.md" or "/docs/a.md"), all dated now.
func NewMemory(files map[string]string, now func() time.Time) (*Memory, error) {
	m := &Memory{files: map[string]memFile{}, dirs: map[string]time.Time{"/": now()}, now: now}
	for name, content := range files {
		p, err := Canonical("/" + strings.TrimPrefix(name, "/"))
		if err != nil {
			return nil, fmt.Errorf("memory file %q: %w", name, err)
		}
		if p == "/" {
			return nil, fmt.Errorf("memory file %q: a file needs a name", name)
		}
		m.files[p] = memFile{data: []byte(content), modified: now()}
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
		}
		if dir == "/" {
			return
		}
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

// List implements Lister.
func (m *Memory) List(_ context.Context, name string) ([]Info, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	info, err := m.stat(name)
	if err != nil {
		return nil, err
	}
	if info.Kind == KindFile {
		return []Info{info}, nil
	}
	var out []Info
	for _, p := range slices.Sorted(maps.Keys(m.files)) {
		if parent(p) == name {
			f := m.files[p]
			out = append(out, Info{Name: base(p), Kind: KindFile, Size: int64(len(f.data)), Modified: f.modified})
		}
	}
	for _, p := range slices.Sorted(maps.Keys(m.dirs)) {
		if p != "/" && parent(p) == name {
			out = append(out, Info{Name: base(p), Kind: KindDirectory, Modified: m.dirs[p]})
		}
	}
	slices.SortFunc(out, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Read implements Reader.
func (m *Memory) Read(_ context.Context, name string) ([]byte, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if f, ok := m.files[name]; ok {
		return slices.Clone(f.data), nil
	}
	if _, ok := m.dirs[name]; ok {
		return nil, ErrIsDir
	}
	return nil, ErrNotExist
}

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
	m.addParents(name)
	return Info{Name: base(name), Kind: KindFile, Size: int64(len(data)), Modified: f.modified}, nil
}

// Delete implements Deleter.
func (m *Memory) Delete(_ context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[name]; ok {
		delete(m.files, name)
		return nil
	}
	if _, ok := m.dirs[name]; !ok {
		return ErrNotExist
	}
	for p := range m.files {
		if Within(p, name) {
			return ErrNotEmpty
		}
	}
	for p := range m.dirs {
		if p != name && Within(p, name) {
			return ErrNotEmpty
		}
	}
	delete(m.dirs, name)
	return nil
}
