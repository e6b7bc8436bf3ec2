// Package role holds the roles a person may grant at consent and the OAuth
// scopes each one carries. The source document shows no scopes and no role
// other than owner (section 5); these are the reference host's own choice
// (PRODUCT.md section 6), never demanded of other hosts. A role is an upper
// bound: a credential may do what its role's scopes allow and nothing more,
// and no role opens a path that gate 3 keeps closed (source section 5.7).
package role

import (
	"slices"
	"strings"
)

// The scopes, one per kind of operation a tool performs on the agent file
// system. Every tool needs exactly one of them.
const (
	ScopeRead   = "afs:read"
	ScopeWrite  = "afs:write"
	ScopeDelete = "afs:delete"
	ScopeExec   = "afs:exec"
)

// Scopes are every scope, in the order metadata and challenges list them.
var Scopes = []string{ScopeRead, ScopeWrite, ScopeDelete, ScopeExec}

// The roles, from the widest to the narrowest.
const (
	Owner  = "owner"
	Admin  = "admin"
	Member = "member"
	Guest  = "guest"
)

// Names are the roles in the order the consent page offers them, the
// default (owner) first.
var Names = []string{Owner, Admin, Member, Guest}

// grants is what each role may do. Running programs is the owner's alone;
// deleting needs admin; a guest only reads.
var grants = map[string][]string{
	Owner:  {ScopeRead, ScopeWrite, ScopeDelete, ScopeExec},
	Admin:  {ScopeRead, ScopeWrite, ScopeDelete},
	Member: {ScopeRead, ScopeWrite},
	Guest:  {ScopeRead},
}

// Known reports whether name is one of the roles.
func Known(name string) bool { return slices.Contains(Names, name) }

// ScopesOf returns the scopes role grants, in the order of Scopes; none for
// an unknown role, so a credential whose role is not understood can do nothing.
func ScopesOf(role string) []string { return slices.Clone(grants[role]) }

// Allows reports whether role grants scope.
func Allows(role, scope string) bool { return slices.Contains(grants[role], scope) }

// Requested returns the scopes of this host that an OAuth scope parameter
// (RFC 6749 section 3.3, space-separated) names, in the order of Scopes;
// other names are ignored.
func Requested(scope string) []string {
	asked := strings.Fields(scope)
	var out []string
	for _, s := range Scopes {
		if slices.Contains(asked, s) {
			out = append(out, s)
		}
	}
	return out
}

// ForScope returns the narrowest role that grants every scope a scope
// parameter names (Requested): the role a person is offered first when a
// client asks for those scopes, as a client does after a 403
// insufficient_scope challenge. With none named it is the default, owner.
func ForScope(scope string) string {
	asked := Requested(scope)
	if len(asked) == 0 {
		return Owner
	}
	for i := len(Names) - 1; i >= 0; i-- {
		if granted := grants[Names[i]]; !slices.ContainsFunc(asked, func(s string) bool { return !slices.Contains(granted, s) }) {
			return Names[i]
		}
	}
	return Owner
}
