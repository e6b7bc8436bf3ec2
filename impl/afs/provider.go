package afs

import (
	"context"
	"io"
	"time"
)

// Kind tells files from directories.
type Kind string

// The kinds of entry.
const (
	KindFile      Kind = "file"
	KindDirectory Kind = "directory"
)

// Info describes one entry as a provider sees it.
type Info struct {
	// Name is the last segment of the entry's path ("" for a mount's root).
	Name string
	// Kind is file or directory.
	Kind Kind
	// Size is the length in bytes of a file, 0 for a directory.
	Size int64
	// Modified is the last modification time.
	Modified time.Time
}

// Provider is what a mount binds a path prefix to. Every provider can stat;
// the other operations are the optional interfaces below, and which of them a
// provider implements is exactly what gate 4 checks and afs_stat reports as
// capabilities (source 7.5 step 5).
//
// Names passed to providers are canonical paths relative to the mount: "/"
// is the mount's root, "/a/b" a path beneath it.
type Provider interface {
	// Stat describes name, or fails with ErrNotExist.
	Stat(ctx context.Context, name string) (Info, error)
	// String names the kind of provider, for afs_explain.
	String() string
}

// Lister is a provider that can list a directory's children. It returns
// names only: the FS filters them and stats only the entries it returns, so
// a listing costs what it returns (issue 9).
type Lister interface {
	// Names returns the names of the children of directory name, sorted,
	// or fails with ErrNotExist when name is not a directory. The caller
	// does not change the slice, so a provider may hand out a cached one.
	Names(ctx context.Context, name string) ([]string, error)
}

// Reader is a provider that can return a file's content. It hands out an
// open file rather than the bytes, so that a read takes the part it was
// asked for and a search streams, whatever the size of the file.
type Reader interface {
	// Open opens file name for reading; the caller closes it. A directory
	// fails with ErrIsDir.
	Open(ctx context.Context, name string) (io.ReadSeekCloser, error)
}

// WriteMode says what afs_write does with an existing file.
type WriteMode string

// The write modes; Overwrite is the default.
const (
	Overwrite WriteMode = "overwrite"
	Append    WriteMode = "append"
	Create    WriteMode = "create"
)

// Writer is a provider that can create and change files. Directories on the
// way to name are created as needed.
type Writer interface {
	Write(ctx context.Context, name string, data []byte, mode WriteMode) (Info, error)
}

// Deleter is a provider that can remove files and empty directories.
type Deleter interface {
	Delete(ctx context.Context, name string) error
}

// Executor is a provider whose paths can be run. No provider of the
// reference host implements it, so afs_exec always meets gate 4; the
// interface is here so that a host that adds one gets exec in capabilities.
type Executor interface {
	Exec(ctx context.Context, name string, args []string) (string, error)
}

// Capabilities returns the operations p implements. Stat and explain are
// always there (explain is answered from the mount table); search is a walk
// over list and read, so it needs both.
func Capabilities(p Provider) OpSet {
	s := SetOf(OpStat, OpExplain)
	_, lists := p.(Lister)
	_, reads := p.(Reader)
	if lists {
		s |= SetOf(OpList)
	}
	if reads {
		s |= SetOf(OpRead)
	}
	if lists && reads {
		s |= SetOf(OpSearch)
	}
	if _, ok := p.(Writer); ok {
		s |= SetOf(OpWrite)
	}
	if _, ok := p.(Deleter); ok {
		s |= SetOf(OpDelete)
	}
	if _, ok := p.(Executor); ok {
		s |= SetOf(OpExec)
	}
	return s
}
