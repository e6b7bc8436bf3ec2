package fakehost

import (
	"encoding/json"
	"fmt"
	"net/url"
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
	{prefix: "/public", provider: "public", implements: readOps, opened: readOps},
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
	// Gate 3 judges the one canonical spelling (source 5.7: only the
	// host's declaration opens a path); the breaks judge another.
	p := path.Clean("/" + raw)
	judged := p
	switch {
	case h.broken(DotDotOpensPath):
		judged = "/" + strings.TrimLeft(raw, "/")
	case h.broken(DecodesAfterPolicy):
		if decoded, err := url.PathUnescape(raw); err == nil {
			p = path.Clean("/" + decoded)
		}
	}
	m, served := mountFor(judged), mountFor(p)
	h.mu.Lock()
	_, exists := h.files[p]
	exists = exists || len(h.children(p)) > 0
	h.mu.Unlock()
	switch {
	case h.broken(NotFoundBeforePolicy) && !exists:
		return toolResult(true, "AFS_NOT_FOUND: Path not found: "+p, nil)
	case h.broken(ProviderBeforePolicy) && served != nil && !slices.Contains(served.implements, op):
		return h.unsupported(p, served, op)
	}
	// Source 5.7: a credential never opens a path; only the host's own
	// declarations do.
	closedToOwner := who.owner && m != nil && m.prefix == "/public" && h.broken(CredentialClosesOpenPath)
	if closedToOwner || !h.opened(m, op) && !(who.owner && h.broken(OwnerBypassesPathPolicy)) {
		explanation := forbidden[op]
		if h.broken(textBreaks[op]) {
			explanation = strings.Replace(explanation, "cannot", "may not", 1)
		}
		return toolResult(!h.broken(ClosedPathNotError), fmt.Sprintf("AFS_FORBIDDEN: Forbidden at %s: network clients %s", p, explanation), nil)
	}
	if served == nil {
		return toolResult(true, "AFS_NOT_FOUND: Path not found: "+p, nil)
	}
	if !slices.Contains(served.implements, op) {
		return h.unsupported(p, served, op)
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

// unsupported is gate 4's refusal. Its code and text are not shown beyond
// the shape (code, path, explanation), so the two compliant hosts differ.
func (h *Host) unsupported(p string, m *mount, op string) map[string]any {
	switch {
	case h.broken(Gate4TextWithoutPath):
		return toolResult(true, fmt.Sprintf("AFS_NOT_IMPLEMENTED: the %s provider has no %s operation", m.provider, op), nil)
	case h.broken(NothingAfterPath):
		return toolResult(true, fmt.Sprintf("AFS_NOT_IMPLEMENTED: the %s provider has no %s operation at %s", m.provider, op, p), nil)
	case h.opts.Other:
		return toolResult(true, fmt.Sprintf("E_PROVIDER %s (%s is not among what the read-only %s provider does)", p, op, m.provider), nil)
	}
	return toolResult(true, fmt.Sprintf("AFS_NOT_IMPLEMENTED: %s: the %s provider has no %s operation", p, m.provider, op), nil)
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
	if h.broken(CapabilitiesOnlyStat) {
		caps = []string{"stat"}
	}
	if h.broken(CapabilitiesListUnsupported) && !slices.Contains(caps, "write") {
		caps = append(caps, "write")
	}
	if !h.broken(CapabilitiesMissing) {
		provider["capabilities"] = caps
	}
	if h.opts.Other {
		// The Other host answers JSON text, with the list at the top.
		raw, _ := json.Marshal(map[string]any{"path": p, "type": kind, "bytes": size, "capabilities": provider["capabilities"]})
		return toolResult(false, string(raw), nil)
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
