package steps

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/harness/wire"
)

// Which tools/call names an anonymous caller may use is not shown (source
// 5, "not shown"); the profile says (tools.allowlisted). A scenario about the
// path policy or a provider rather than about anonymity calls as a caller the
// method allowlist admits: anonymous when tools.allowlisted names every tool
// it calls, otherwise with the target's credential, since gate 3 is the same
// for every caller (source 5.7).

var toolListSeparator = regexp.MustCompile(`\s*,\s*|\s+and\s+`)

// allowedToCall takes "{tools.read}" or "{tools.read} and {tools.list}".
func (st *State) allowedToCall(list string) error {
	var tools []string
	for _, t := range toolListSeparator.Split(strings.TrimSpace(list), -1) {
		t, err := st.expand(t)
		if err != nil {
			return err
		}
		tools = append(tools, t)
	}
	return st.callerFor(tools)
}

// allowedToPerform takes an operation the source names (list, stat, read, write).
func (st *State) allowedToPerform(operation string) error {
	tool, err := st.toolFor(operation)
	if err != nil {
		return err
	}
	return st.callerFor([]string{tool})
}

// callerFor makes the current caller one the method allowlist admits to every
// tool named, or stops the scenario as not run naming what is missing.
func (st *State) callerFor(tools []string) error {
	auth, err := st.authFor(tools)
	if err != nil {
		return err
	}
	st.auth, st.byAllowlist = auth, auth == ""
	return nil
}

// authFor returns the Authorization value of a caller allowed to call every
// tool named: "" (anonymous) when tools.allowlisted names them all.
func (st *State) authFor(tools []string) (string, error) {
	var privileged []string
	for _, t := range tools {
		if !slices.Contains(st.Target.Profile.Tools.Allowlisted, t) {
			privileged = append(privileged, t)
		}
	}
	if len(privileged) == 0 {
		return "", nil
	}
	if st.Target.Credential == "" {
		return "", st.skip(fmt.Sprintf("calls %s, which tools.allowlisted does not name, so it needs a credential: %s",
			strings.Join(privileged, ", "), st.Target.Lacks(target.NeedsCredential)))
	}
	return "Bearer " + st.Target.Credential, nil
}

// anonymousAllowedToCall is for scenarios about anonymous callers: they run
// only when the profile puts the tool on the anonymous allowlist.
func (st *State) anonymousAllowedToCall(tool string) error {
	tool, err := st.expand(tool)
	if err != nil {
		return err
	}
	if allow := st.Target.Profile.Tools.Allowlisted; !slices.Contains(allow, tool) {
		return st.skip(fmt.Sprintf("is about an anonymous call of %s, which tools.allowlisted (now [%s]) does not name",
			tool, strings.Join(allow, ", ")))
	}
	st.auth = ""
	return nil
}

// unlistedName returns a name none of names is: a tool the host does not know.
func unlistedName(names []string) string {
	name := unlistedTool
	for i := 1; slices.Contains(names, name); i++ {
		name = fmt.Sprintf("conform_unlisted_tool_%d", i)
	}
	return name
}

// toolExists checks that a call answered with a tool result reached a tool
// that exists. A host that does not know a name may still answer 200 with
// isError ("Tool not found"), which is no in-call failure of the source's
// shape: source 5.5 answers an anonymous unknown name with the 401, and an
// existing tool is one tools/list names to a caller allowed to call it. So
// the tool exists when tools/list, asked by the same caller, names it, or,
// for an anonymous caller, when a name the host does not know answers the
// 401: the host then decides names before looking them up, and the 200 shows
// the name is on its allowlist.
func (st *State) toolExists(ctx context.Context, tool, auth string) error {
	key := auth + "\x00" + tool
	if st.exists[key] {
		return nil
	}
	check := fmt.Sprintf("the tool %s exists on this host (source 5.5, 7.1: only a call that reached a tool answers with its result)", tool)
	expected := "tools/list, asked by the same caller, names " + tool
	if auth == "" {
		expected += ", or an anonymous call of a name the host does not know answers 401 (source 5.5)"
	}
	list, err := st.MCP.Call(ctx, auth, "tools/list", map[string]any{})
	if err != nil {
		return st.depart(check, expected, "tools/list got no response: "+err.Error())
	}
	actual := "tools/list " + describe(list)
	names, lerr := list.ToolNames()
	if list.Status == 200 && lerr == nil {
		if slices.Contains(names, tool) {
			st.exists[key] = true
			return nil
		}
		actual = "tools/list names " + nameList(names)
	}
	exchanges := []wire.Exchange{list.Last()}
	if auth == "" {
		name := unlistedName(names)
		u, err := st.MCP.Call(ctx, "", "tools/call", map[string]any{"name": name, "arguments": map[string]any{"path": st.Target.Profile.Paths.Open}})
		if err != nil {
			return st.depart(check, expected, actual+"; the call of an unknown name got no response: "+err.Error(), exchanges...)
		}
		if u.Status == 401 {
			st.exists[key] = true
			return nil
		}
		actual += fmt.Sprintf("; an anonymous call of the unknown name %s answered %s", name, describe(u))
		exchanges = append(exchanges, u.Last())
	}
	return st.depart(check, expected, actual, exchanges...)
}

// nameList shows tool names for a message.
func nameList(names []string) string {
	if len(names) == 0 {
		return "no tool"
	}
	return strings.Join(names, ", ")
}

// everyListedAnswers checks the part of source 5.5 that binds every host:
// each name an anonymous tools/list shows is either on the allowlist (the
// call reaches the tool: a JSON-RPC result) or privileged (the 401), never
// anything else. Only the names the profile knows are called: the suite never
// calls a tool it knows nothing about, whose effects it cannot foresee.
func (st *State) everyListedAnswers(ctx context.Context) error {
	names, err := st.anonymousToolNames(ctx)
	if err != nil {
		return err
	}
	t := st.Target.Profile.Tools
	known := append([]string{t.List, t.Stat, t.Read, t.Write}, t.Allowlisted...)
	known = append(known, t.Privileged...)
	checked := 0
	for _, name := range names {
		if !slices.Contains(known, name) {
			continue
		}
		// A privileged tool is called where a write may land: should the
		// host let it through, the open path's content stays as it was.
		path := st.Target.Profile.Paths.Open
		if name == t.Write || slices.Contains(t.Privileged, name) {
			path = st.Target.Profile.Paths.Writable
		}
		r, err := st.MCP.Call(ctx, "", "tools/call", map[string]any{"name": name, "arguments": st.toolArguments(name, path)})
		if err := st.took(r, err); err != nil {
			return err
		}
		if !answersResultOr401(r) {
			return st.depart(fmt.Sprintf("anonymous call of %s, which anonymous tools/list shows (source 5.5)", name),
				"a JSON-RPC result (an allowlisted tool) or HTTP 401 (a privileged tool)", describe(r), r.Last())
		}
		checked++
	}
	if checked == 0 {
		return st.skip(fmt.Sprintf("anonymous tools/list shows none of the tools the profile names (it shows %s)", nameList(names)))
	}
	return nil
}

func answersResultOr401(r *mcpclient.Reply) bool {
	return r.Status == 401 || (r.Status == 200 && r.Message != nil && r.Message.Result != nil)
}
