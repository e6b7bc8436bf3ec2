package afs

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Explanation is afs_explain's answer: which mount, provider and policy
// rule decide a path, in words and in fields.
type Explanation struct {
	Path         string      `json:"path"`
	Mount        string      `json:"mount,omitempty"`
	Provider     string      `json:"provider"`
	Overlay      bool        `json:"overlay"`
	Rule         string      `json:"rule"`
	Network      []Operation `json:"network"`
	Capabilities []Operation `json:"capabilities"`
	Exists       bool        `json:"exists"`
	Kind         Kind        `json:"kind,omitempty"`
	Text         string      `json:"text"`
}

// Explain says how the host decides p, following the gate order of
// source 5.6 so that it reads like the diagnosis order of source 7.5.
func (f *FS) Explain(ctx context.Context, p string) (Explanation, error) {
	n, err := f.admit(p, OpExplain)
	if err != nil {
		return Explanation{}, err
	}
	d := f.policy.Decide(n.path)
	caps := n.caps()
	ex := Explanation{
		Path:         n.path,
		Provider:     "none (a directory that holds mount points)",
		Rule:         d.By,
		Network:      d.Open.List(),
		Capabilities: caps.List(),
	}
	if n.mount != nil {
		ex.Mount, ex.Provider, ex.Overlay = n.mount.Path, n.mount.Provider.String(), n.mount.Overlay
	}
	found, err := f.mounts.lookup(ctx, n.path)
	switch {
	case err == nil:
		ex.Exists, ex.Kind = true, found.info.Kind
	case !errors.Is(err, ErrNotExist):
		return Explanation{}, fail(n.path, OpExplain, err)
	}

	var b strings.Builder
	if n.mount != nil {
		kind := "mount"
		if n.mount.Overlay {
			kind = "resolver overlay"
		}
		fmt.Fprintf(&b, "%s is served by the %s (%s) at %s.", n.path, n.mount.Provider, kind, n.mount.Path)
	} else {
		fmt.Fprintf(&b, "%s is not served by any mount; it is a directory that holds mount points.", n.path)
	}
	closed := allOps &^ d.Open
	fmt.Fprintf(&b, " Gate 3 (path policy): the %s opens %s to network clients", d.By, d.Open)
	if closed != 0 {
		fmt.Fprintf(&b, "; %s stay closed whatever the credential", closed)
	}
	b.WriteString(".")
	fmt.Fprintf(&b, " Gate 4 (provider): it implements %s", caps)
	if missing := d.Open &^ caps; missing != 0 {
		fmt.Fprintf(&b, ", so %s answer AFS_NOT_SUPPORTED", missing)
	}
	b.WriteString(".")
	if ex.Exists {
		fmt.Fprintf(&b, " The path exists (%s).", ex.Kind)
	} else {
		b.WriteString(" Nothing exists at the path.")
	}
	ex.Text = b.String()
	return ex, nil
}
