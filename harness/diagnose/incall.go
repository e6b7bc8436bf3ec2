package diagnose

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/mcpclient"
)

// The diagnosis steps after the call reached the host: the path policy
// (gate 3) and the provider (gate 4), source 7.4 and 7.5 steps 4 and 5.

// Step 4 (source 7.5, 7.4): AFS_FORBIDDEN is gate 3.
func (w *walk) pathPolicy(tr *mcpclient.ToolResult) *Verdict {
	text := strings.TrimSpace(tr.Text)
	if !strings.HasPrefix(text, "AFS_FORBIDDEN") {
		w.observe(4, nil, "the error is not AFS_FORBIDDEN: %s", abbreviate(text, 200))
		return nil
	}
	w.observe(4, nil, "the error is AFS_FORBIDDEN: %s", abbreviate(text, 200))
	where := "the path"
	if w.in.Path != "" {
		where = w.in.Path
	}
	caller := "the credential is fine"
	if w.auth == "" {
		caller = "the call passed gates 1 and 2 (a credential would not change this)"
	}
	return &Verdict{
		Step: 4,
		Gate: GatePathPolicy,
		Summary: fmt.Sprintf("gate 3 (path policy) refused the call: %s, and %s is closed to network clients",
			caller, where),
		Remedy: fmt.Sprintf("the host must open %s to network clients by declaring a networkRead rule or a resolver overlay "+
			"for it (writes need an overlay); a credential or the owner role will not help (source 5.7)", where),
		Result: tr.Text,
	}
}

// Step 5 (source 7.5): afs_stat's capabilities tell whether the provider
// implements the operation (gate 4); for AFS_NOT_FOUND, source 7.4 says to
// list the parent before concluding that a provider is missing.
func (w *walk) provider(ctx context.Context, tr *mcpclient.ToolResult) (Verdict, error) {
	code := errorCode(tr.Text)
	if w.in.Path == "" {
		w.observe(5, nil, "no path was given, so %s cannot show the provider's capabilities", w.in.StatTool)
		return Verdict{
			Step: 5,
			Summary: fmt.Sprintf("the call reached the tool and failed with %s, not AFS_FORBIDDEN; without a path "+
				"the provider's capabilities cannot be checked", orUnknown(code)),
			Remedy: fmt.Sprintf("diagnose again with the path the call operates on: `%s`", w.rerun("--path", "PATH")),
			Result: tr.Text,
		}, nil
	}
	op, sure := operationOf(w.in.Tool)
	opNote := ""
	if !sure {
		opNote = fmt.Sprintf(" (taking %s as the operation of %s, a guess from its name)", op, w.in.Tool)
	}
	r, err := w.callTool(ctx, w.in.StatTool, map[string]any{"path": w.in.Path})
	if err != nil {
		return Verdict{}, err
	}
	st, serr := r.ToolResult()
	caps, found := []string(nil), false
	statCode := ""
	switch {
	case r.Status != http.StatusOK || serr != nil:
		w.observe(5, last(r), "%s on %s %s", w.in.StatTool, w.in.Path, answered(r))
	case st.IsError:
		statCode = errorCode(st.Text)
		w.observe(5, last(r), "%s on %s answered an error: %s", w.in.StatTool, w.in.Path, abbreviate(st.Text, 200))
	default:
		caps, found = st.Capabilities()
		if found {
			w.observe(5, last(r), "%s on %s lists the capabilities [%s]", w.in.StatTool, w.in.Path, strings.Join(caps, ", "))
		} else {
			w.observe(5, last(r), "%s on %s answered with no capabilities list: %s", w.in.StatTool, w.in.Path, abbreviate(st.Text, 200))
		}
	}
	if found && !slices.Contains(caps, op) {
		return Verdict{
			Step: 5,
			Gate: GateProvider,
			Summary: fmt.Sprintf("gate 4 (provider) refused the call: %s does not list %s in the capabilities of %s, "+
				"so the provider does not implement it%s", w.in.StatTool, op, w.in.Path, opNote),
			Remedy: fmt.Sprintf("%s cannot succeed at %s on this host: use a path whose provider lists %s in its capabilities", op, w.in.Path, op),
			Result: tr.Text,
		}, nil
	}
	if found {
		w.observe(5, nil, "%s is among the capabilities%s, so gate 4 does not refuse it", op, opNote)
	}
	if code == "AFS_NOT_FOUND" || statCode == "AFS_NOT_FOUND" {
		return w.notFound(ctx, tr)
	}
	why := fmt.Sprintf("%s lists %s among the capabilities of %s", w.in.StatTool, op, w.in.Path)
	if !found {
		why = fmt.Sprintf("%s did not show the capabilities of %s, so gate 4 could not be checked", w.in.StatTool, w.in.Path)
	}
	return Verdict{
		Step:      5,
		Uncovered: true,
		Summary: fmt.Sprintf("the call reached the tool and failed with %s, which no step of the diagnosis order explains: "+
			"it is not AFS_FORBIDDEN (gate 3) and %s", orUnknown(code), why),
		Remedy: "read the tool's error text below; the source's failure shapes do not name its cause",
		Result: tr.Text,
	}, nil
}

// notFound lists the parent (source 7.4: paths are scoped to the host; list
// the parent with afs_list before concluding that a provider is missing).
func (w *walk) notFound(ctx context.Context, tr *mcpclient.ToolResult) (Verdict, error) {
	parent, name := split(w.in.Path)
	if name == "" {
		return Verdict{
			Step:    5,
			Summary: fmt.Sprintf("%s was not found on this host, and it has no parent to list", w.in.Path),
			Remedy:  "check the path; paths are scoped to the host (source 7.4)",
			Result:  tr.Text,
		}, nil
	}
	r, err := w.callTool(ctx, w.in.ListTool, map[string]any{"path": parent})
	if err != nil {
		return Verdict{}, err
	}
	lt, lerr := r.ToolResult()
	switch {
	case r.Status != http.StatusOK || lerr != nil:
		w.observe(5, last(r), "%s on the parent %s %s", w.in.ListTool, parent, answered(r))
	case lt.IsError:
		w.observe(5, last(r), "%s on the parent %s answered an error: %s", w.in.ListTool, parent, abbreviate(lt.Text, 200))
		if errorCode(lt.Text) == "AFS_NOT_FOUND" {
			return Verdict{
				Step: 5,
				Summary: fmt.Sprintf("%s does not exist on this host, and neither does its parent %s: "+
					"no provider may be mounted there", w.in.Path, parent),
				Remedy: fmt.Sprintf("list higher up with %s to see what this host mounts; paths are scoped to the host, "+
					"so a path that resolves on another host can be absent here (source 7.4)", w.in.ListTool),
				Result: tr.Text,
			}, nil
		}
	default:
		if lt.Names(name) {
			w.observe(5, last(r), "%s on the parent %s lists, and names %s", w.in.ListTool, parent, name)
			return Verdict{
				Step:      5,
				Uncovered: true,
				Summary: fmt.Sprintf("the host answered AFS_NOT_FOUND for %s, yet the listing of %s names %s; "+
					"the source's failure shapes do not explain this", w.in.Path, parent, name),
				Remedy: "compare the exact path with the listing (case, trailing slash); the host may be at fault",
				Result: tr.Text,
			}, nil
		}
		w.observe(5, last(r), "%s on the parent %s lists, and does not name %s", w.in.ListTool, parent, name)
		return Verdict{
			Step: 5,
			Summary: fmt.Sprintf("%s does not exist on this host: its parent %s lists, so a provider is there, "+
				"but %s is not in it", w.in.Path, parent, name),
			Remedy: fmt.Sprintf("use a path that exists on this host (see the listing of %s); paths are scoped to the host, "+
				"so a path that resolves on another host can be absent here (source 7.4)", parent),
			Result: tr.Text,
		}, nil
	}
	remedy := fmt.Sprintf("list a parent that is open to network clients with %s, or ask the host's author which providers it mounts", w.in.ListTool)
	if r.Status == http.StatusUnauthorized && w.auth == "" {
		// Which tools anonymous callers may use is the host's choice
		// (source 5, "not shown"); the parent can still be listed with one.
		remedy = fmt.Sprintf("%s answers 401 to an anonymous caller on this host: sign in with `conform login --target %s` "+
			"and run `%s` again, so that the parent can be listed", w.in.ListTool, w.base, w.rerun())
	}
	return Verdict{
		Step: 5,
		Summary: fmt.Sprintf("%s was not found, and its parent %s could not be listed, so a missing path cannot be told "+
			"from a missing provider", w.in.Path, parent),
		Remedy: remedy,
		Result: tr.Text,
	}, nil
}
