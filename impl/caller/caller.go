// Package caller holds who is making a call to the reference host, as decided
// by gate 2 (source section 5) and read by the tools behind it.
package caller

import "context"

// Caller is the identity a request carries once gate 2 has accepted it.
// The zero value is the anonymous caller.
type Caller struct {
	// ClientID is the OAuth client the credential was issued to.
	ClientID string
	// Role is the role chosen at consent: owner, admin, member or guest.
	Role string
}

// Anonymous reports whether no credential was presented.
func (c Caller) Anonymous() bool { return c.ClientID == "" && c.Role == "" }

type key struct{}

// NewContext returns ctx carrying c.
func NewContext(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, key{}, c)
}

// FromContext returns the caller in ctx, or the anonymous caller.
func FromContext(ctx context.Context) Caller {
	c, _ := ctx.Value(key{}).(Caller)
	return c
}
