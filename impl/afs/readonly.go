package afs

import (
	"context"
	"io"
)

// ReadableProvider is a provider that lists and reads.
type ReadableProvider interface {
	Provider
	Lister
	Reader
}

// ReadOnly hides every changing operation of p. The result implements only
// stat, list and read (and so search and explain): an overlay over it is
// opened by gate 3 and refused by gate 4 (PRODUCT 4, paths.unsupported).
func ReadOnly(p ReadableProvider) Provider { return readOnly{p} }

type readOnly struct{ p ReadableProvider }

func (r readOnly) Stat(ctx context.Context, name string) (Info, error) { return r.p.Stat(ctx, name) }
func (r readOnly) Names(ctx context.Context, name string) ([]string, error) {
	return r.p.Names(ctx, name)
}
func (r readOnly) Open(ctx context.Context, name string) (io.ReadSeekCloser, error) {
	return r.p.Open(ctx, name)
}
func (r readOnly) String() string { return r.p.String() + " (read-only)" }
