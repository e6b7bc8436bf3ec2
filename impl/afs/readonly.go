package afs

import "context"

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
func (r readOnly) List(ctx context.Context, name string) ([]Info, error) {
	return r.p.List(ctx, name)
}
func (r readOnly) Read(ctx context.Context, name string) ([]byte, error) {
	return r.p.Read(ctx, name)
}
func (r readOnly) String() string { return r.p.String() + " (read-only)" }
