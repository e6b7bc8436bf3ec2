// Package afs is the reference host's agent file system: canonical paths,
// providers bound to mount points, and the two in-call gates of source
// section 5.6 (gate 3, path policy; gate 4, provider).
package afs

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxPathLength bounds a path in bytes, so a hostile caller cannot make every
// later step (policy, mount lookup, disk) work on megabytes of name.
const MaxPathLength = 4096

// Canonical returns the one spelling of p that policy and providers ever see.
// Paths are absolute; "//" collapses and a trailing "/" drops. A NUL byte, a
// backslash, a "." or ".." segment, a relative path or invalid UTF-8 is an
// AFS_INVALID_PATH error rather than something to repair: repairing ".."
// would let a spelling choose which tree gate 3 judges (source 5.7).
// Percent sequences are never decoded, so "%2e%2e" is a literal name.
func Canonical(p string) (string, error) {
	if why := invalidity(p); why != "" {
		return "", InvalidPath(p, why)
	}
	var b strings.Builder
	b.Grow(len(p))
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" {
			continue
		}
		b.WriteByte('/')
		b.WriteString(seg)
	}
	if b.Len() == 0 {
		return "/", nil
	}
	return b.String(), nil
}

// invalidity says why p cannot be canonicalised, or "" when it can.
func invalidity(p string) string {
	switch {
	case p == "":
		return "the path is empty"
	case len(p) > MaxPathLength:
		return fmt.Sprintf("the path is longer than %d bytes", MaxPathLength)
	case !utf8.ValidString(p):
		return "the path is not valid UTF-8"
	case strings.IndexByte(p, 0) >= 0:
		return "the path contains a NUL byte"
	case strings.IndexByte(p, '\\') >= 0:
		return "the path contains a backslash"
	case p[0] != '/':
		return "the path must be absolute (start with /)"
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "." || seg == ".." {
			return fmt.Sprintf("the path contains a %q segment", seg)
		}
	}
	return ""
}

// Within reports whether canonical path p is prefix itself or lies beneath it.
// Matching is by whole segments: "/publicity" is not within "/public".
func Within(p, prefix string) bool {
	if prefix == "/" {
		return true
	}
	return p == prefix || strings.HasPrefix(p, prefix) && p[len(prefix)] == '/'
}

// join appends a child name to canonical directory path dir.
func join(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}
