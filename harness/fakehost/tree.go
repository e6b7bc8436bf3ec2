package fakehost

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
)

// The host's tree has the shape of the default profile: /public opened by a
// networkRead rule, /base closed, /overlay opened by a resolver overlay, and
// /overlay/readonly opened too but served by a provider without write.
func initialFiles() map[string]string {
	return map[string]string{
		"/public/readme.md":          "A file open to network clients.\n",
		"/base/notes.txt":            "A file the host has not opened.\n",
		"/overlay/scratch.txt":       "A file credentialed callers may write.\n",
		"/overlay/readonly/about.md": "A file whose provider cannot write.\n",
	}
}

// mount is a subtree served by one provider, with the operations the host's
// declarations open to network clients (gate 3) and the operations the
// provider implements (gate 4).
type mount struct {
	prefix     string
	provider   string
	implements []string
	opened     []string
	overlay    bool
}

var (
	allOps  = []string{"list", "read", "stat", "write"}
	readOps = []string{"list", "read", "stat"}
)

// mounts, longest prefix first.
var mounts = []mount{
	{prefix: "/overlay/readonly", provider: "docs", implements: readOps, opened: allOps, overlay: true},
	{prefix: "/overlay", provider: "scratch", implements: allOps, opened: allOps, overlay: true},
	{prefix: "/public", provider: "public", implements: allOps, opened: readOps},
	{prefix: "/base", provider: "base", implements: allOps},
}

func mountFor(p string) *mount {
	for i := range mounts {
		if p == mounts[i].prefix || strings.HasPrefix(p, mounts[i].prefix+"/") {
			return &mounts[i]
		}
	}
	return nil
}

// forbidden are the AFS_FORBIDDEN explanations of source 7.4, by operation.
var forbidden = map[string]string{
	"write": "cannot write base paths; use a resolver overlay or internal code",
	"read":  "cannot read base paths; declare a networkRead rule or use an overlay",
	"list":  "cannot list base paths; declare a networkRead rule or use an overlay",
	"stat":  "cannot stat base paths; declare a networkRead rule or use an overlay",
}

// textBreaks alter one operation's AFS_FORBIDDEN explanation each.
var textBreaks = map[string]Break{
	"write": ForbiddenWriteText, "read": ForbiddenReadText, "list": ForbiddenListText, "stat": ForbiddenStatText,
}

var operations = map[string]string{toolList: "list", toolStat: "stat", toolRead: "read", toolWrite: "write"}

// call runs a path tool that passed gates 1 and 2: gate 3 (path policy), gate
// 4 (provider), then the operation (source 5.6 and 7.4).
func (h *Host) call(tool, raw, content string, who caller) map[string]any {
	op := operations[tool]
	p := path.Clean("/" + raw)
	m := mountFor(p)
	// Source 5.7: a credential never opens a path; only the host's own
	// declarations do.
	if !h.opened(m, op) && !(who.owner && h.broken(OwnerBypassesPathPolicy)) {
		explanation := forbidden[op]
		if h.broken(textBreaks[op]) {
			explanation = strings.Replace(explanation, "cannot", "may not", 1)
		}
		return toolResult(!h.broken(ClosedPathNotError), fmt.Sprintf("AFS_FORBIDDEN: Forbidden at %s: network clients %s", p, explanation), nil)
	}
	if !slices.Contains(m.implements, op) {
		// Gate 4's text is not shown beyond its shape (code, path, explanation).
		if h.broken(Gate4TextWithoutPath) {
			return toolResult(true, fmt.Sprintf("AFS_NOT_IMPLEMENTED: the %s provider has no %s operation", m.provider, op), nil)
		}
		return toolResult(true, fmt.Sprintf("AFS_NOT_IMPLEMENTED: %s: the %s provider has no %s operation", p, m.provider, op), nil)
	}

	h.mu.Lock()
	defer h.mu.Unlock()
	file, isFile := h.files[p]
	children := h.children(p)
	isDir := len(children) > 0
	switch op {
	case "write":
		if isDir {
			return toolResult(true, fmt.Sprintf("AFS_IS_DIRECTORY: %s: a directory cannot be written", p), nil)
		}
		h.files[p] = content
		return toolResult(false, fmt.Sprintf("wrote %d bytes to %s", len(content), p), nil)
	case "read":
		if isFile {
			return toolResult(false, file, nil)
		}
	case "stat":
		if isFile || isDir {
			return h.stat(p, m, isDir, len(file))
		}
	case "list":
		if isDir {
			return h.listing(p, children)
		}
	}
	if isFile || isDir {
		return toolResult(true, fmt.Sprintf("AFS_WRONG_KIND: %s: cannot %s this kind of entry", p, op), nil)
	}
	if h.broken(NotFoundText) {
		return toolResult(true, "AFS_NOT_FOUND: No such path: "+p, nil)
	}
	return toolResult(true, "AFS_NOT_FOUND: Path not found: "+p, nil)
}

// opened is gate 3: whether the host's declarations open p for op.
func (h *Host) opened(m *mount, op string) bool {
	switch {
	case m == nil:
		return false
	case m.prefix == "/public" && h.broken(NetworkReadIgnored):
		return false
	case m.overlay && op == "write" && h.broken(OverlayWriteForbidden):
		return false
	}
	return slices.Contains(m.opened, op)
}

// children returns the names directly under dir, sorted. The caller holds h.mu.
func (h *Host) children(dir string) []string {
	seen := map[string]bool{}
	for f := range h.files {
		if rest, ok := strings.CutPrefix(f, dir+"/"); ok {
			name, _, _ := strings.Cut(rest, "/")
			seen[name] = true
		}
	}
	out := make([]string, 0, len(seen))
	for name := range seen {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// listing is afs_list's result; its shape is not shown, so this host sends
// one name per line and the names as structured content.
func (h *Host) listing(dir string, children []string) map[string]any {
	switch {
	case h.broken(ListingOmitsChild) && dir == "/public":
		children = nil
	case h.broken(ListingNamesMissing) && dir == "/public":
		children = append(children, "no-such-file")
	}
	text := strings.Join(children, "\n")
	if text == "" {
		text = "(empty)"
	}
	return toolResult(false, text, map[string]any{"directory": dir, "names": children})
}

// stat is afs_stat's result. Source 1 asks for a capabilities list; this host
// nests it under the provider, unlike the reference host.
func (h *Host) stat(p string, m *mount, isDir bool, size int) map[string]any {
	kind := "file"
	if isDir {
		kind = "directory"
	}
	provider := map[string]any{"name": m.provider}
	caps := slices.Clone(m.implements)
	if h.broken(CapabilitiesListUnsupported) && !slices.Contains(caps, "write") {
		caps = append(caps, "write")
	}
	if !h.broken(CapabilitiesMissing) {
		provider["capabilities"] = caps
	}
	text := fmt.Sprintf("%s is a %s of %d bytes served by the %s provider", p, kind, size, m.provider)
	return toolResult(false, text, map[string]any{"kind": kind, "size": size, "provider": provider})
}

// toolResult builds an MCP CallToolResult.
func toolResult(isError bool, text string, structured any) map[string]any {
	r := map[string]any{
		"content": []any{map[string]any{"type": "text", "text": text}},
		"isError": isError,
	}
	if structured != nil {
		r["structuredContent"] = structured
	}
	return r
}
