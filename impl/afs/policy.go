package afs

import (
	"fmt"
	"path"
	"strings"
)

// Policy is gate 3 (source 5.6, 5.7): which operations the host opens to
// network clients at a path. Every MCP caller is a network client, so the
// policy never looks at the credential; a path is closed unless the host
// itself opened it with a networkRead rule or a resolver overlay.
type Policy struct {
	networkRead []string
	overlays    []string
}

// Decision is gate 3's answer for one path.
type Decision struct {
	// Open holds the operations network clients may perform at the path.
	Open OpSet
	// By names the declaration that opened them ("" when the path is closed).
	By string
}

// NewPolicy returns the policy opened by networkRead rules and by overlays.
// A networkRead rule is a glob when it holds any of "*?[" (matched against
// the whole canonical path with path.Match, so "*" stays within a segment)
// and a prefix otherwise (the path itself and everything beneath it).
// Overlays are the canonical paths of mounts declared as resolver overlays.
func NewPolicy(networkRead, overlays []string) (*Policy, error) {
	for _, r := range networkRead {
		if err := checkRule(r); err != nil {
			return nil, fmt.Errorf("networkRead rule %q: %w", r, err)
		}
	}
	for _, o := range overlays {
		if c, err := Canonical(o); err != nil || c != o {
			return nil, fmt.Errorf("overlay %q: not a canonical path", o)
		}
	}
	return &Policy{networkRead: networkRead, overlays: overlays}, nil
}

func isGlob(rule string) bool { return strings.ContainsAny(rule, "*?[") }

func checkRule(rule string) error {
	if !strings.HasPrefix(rule, "/") {
		return fmt.Errorf("must be absolute")
	}
	if isGlob(rule) {
		if _, err := path.Match(rule, "/"); err != nil {
			return err
		}
		return nil
	}
	if c, err := Canonical(rule); err != nil || c != rule {
		return fmt.Errorf("not a canonical path")
	}
	return nil
}

// Decide returns the operations open at canonical path p. An overlay opens
// every operation (source 5.7); a networkRead rule opens those that only
// observe. The overlay is checked first because it opens more, and the
// innermost overlay is named because it is the one that serves the path.
func (pol *Policy) Decide(p string) Decision {
	best := ""
	for _, o := range pol.overlays {
		if Within(p, o) && len(o) >= len(best) {
			best = o
		}
	}
	if best != "" {
		return Decision{Open: allOps, By: "resolver overlay " + best}
	}
	for _, r := range pol.networkRead {
		if matchRule(r, p) {
			return Decision{Open: readOps, By: "networkRead rule " + r}
		}
	}
	return Decision{}
}

func matchRule(rule, p string) bool {
	if isGlob(rule) {
		ok, _ := path.Match(rule, p)
		return ok
	}
	return Within(p, rule)
}
