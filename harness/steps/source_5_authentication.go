package steps

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/harness/wire"
)

// allowedTo makes the caller one the allowlist admits: anonymous for a
// tool tools.allowlisted names, or whoever may call the tools (or perform
// the operation) named.
func (st *sourceState) allowedTo(who, verb, what string) error {
	switch {
	case who == "an anonymous":
		return st.anonymousAllowedToCall(what)
	case verb == "perform":
		return st.allowedToPerform(what)
	}
	return st.allowedToCall(what)
}

// everyNamedTool calls every tool the profile names as privileged, or as
// allowlisted, on a path.
func (st *sourceState) everyNamedTool(ctx context.Context, which, path string) error {
	if which == "privileged tool answers 401" {
		return st.everyPrivileged(ctx, path)
	}
	return st.everyAllowlisted(ctx, path)
}

func (st *sourceState) withPeerCredential() error {
	if st.Target.PeerCredential == "" {
		return st.skip(st.Target.Lacks("peer"))
	}
	st.auth = "Bearer " + st.Target.PeerCredential
	return nil
}

// everyPrivileged calls each tool the profile names as privileged, as the
// current caller, and expects the 401 of source 7.2 from each: a credential
// is needed for all of them, not only the one other scenarios use.
func (st *sourceState) everyPrivileged(ctx context.Context, path string) error {
	return st.everyTool(ctx, "tools.privileged", st.Target.Profile.Tools.Privileged, path, func(r *mcpclient.Reply) (string, bool) {
		return "HTTP 401", r.Status == 401
	}, nil)
}

// everyAllowlisted calls each tool the profile names as allowlisted and
// expects the call to reach the tool (source 5.3): HTTP 200 with a JSON-RPC
// result. Whether the operation then succeeds is the tool's affair.
func (st *sourceState) everyAllowlisted(ctx context.Context, path string) error {
	return st.everyTool(ctx, "tools.allowlisted", st.Target.Profile.Tools.Allowlisted, path, func(r *mcpclient.Reply) (string, bool) {
		return "HTTP 200 with a JSON-RPC result", r.Status == 200 && r.Message != nil && r.Message.Result != nil
	}, st.toolExists)
}

// everyTool calls each of tools on path and judges each reply with ok; then,
// when given, with reached, which checks that the tool exists.
func (st *sourceState) everyTool(ctx context.Context, key string, tools []string, path string, ok func(*mcpclient.Reply) (string, bool),
	reached func(ctx context.Context, tool, auth string) error) error {
	path, err := st.expand(path)
	if err != nil {
		return err
	}
	if len(tools) == 0 {
		return st.skip("the profile names no " + key)
	}
	for _, tool := range tools {
		if err := st.callTool(ctx, tool, st.toolArguments(tool, path)); err != nil {
			return err
		}
		if want, good := ok(st.reply); !good {
			return st.depart(tool+" (from "+key+")", want, describe(st.reply), st.reply.Last())
		}
		if reached != nil {
			if err := reached(ctx, tool, st.auth); err != nil {
				return err
			}
		}
	}
	return nil
}

// Which tools/call names an anonymous caller may use is not shown (source
// 5, "not shown"); the profile says (tools.allowlisted). A scenario about the
// path policy or a provider rather than about anonymity calls as a caller the
// method allowlist admits: anonymous when tools.allowlisted names every tool
// it calls, otherwise with the target's credential, since gate 3 is the same
// for every caller (source 5.7).

var toolListSeparator = regexp.MustCompile(`\s*,\s*|\s+and\s+`)

// allowedToCall takes "{tools.read}" or "{tools.read} and {tools.list}".
func (st *sourceState) allowedToCall(list string) error {
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
func (st *sourceState) allowedToPerform(operation string) error {
	tool, err := st.toolFor(operation)
	if err != nil {
		return err
	}
	return st.callerFor([]string{tool})
}

// callerFor makes the current caller one the method allowlist admits to every
// tool named, or stops the scenario as not run naming what is missing.
func (st *sourceState) callerFor(tools []string) error {
	auth, err := st.authFor(tools)
	if err != nil {
		return err
	}
	st.auth, st.byAllowlist = auth, auth == ""
	return nil
}

// authFor returns the Authorization value of a caller allowed to call every
// tool named: "" (anonymous) when tools.allowlisted names them all.
func (st *sourceState) authFor(tools []string) (string, error) {
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
func (st *sourceState) anonymousAllowedToCall(tool string) error {
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
func (st *sourceState) toolExists(ctx context.Context, tool, auth string) error {
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
func (st *sourceState) everyListedAnswers(ctx context.Context) error {
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

// Steps that judge a refusal by what it left undone rather than by its
// shape: where the source fixes only that a call must not get through
// (source 5.3, "Anonymous callers ... may use only these methods"), the
// suite looks at the file the call would have written, after showing in the
// same scenario that a write it is allowed to make is seen.

// registerAuthentication binds the steps of who may call what (source 5):
// callers the allowlist admits, every tool the profile names, and the
// marker that shows what a refused call left undone.
func (st *sourceState) registerAuthentication(sc stepContext) {
	// Source 5.1: credentials travel in the Authorization header.
	st.credentials["a credential issued by the peer"] = noContext(st.withPeerCredential)
	sc.Step(`^(a|an anonymous) caller allowed to (call|perform) (.+)$`, st.allowedTo)
	sc.Step(`^every (privileged tool answers 401|allowlisted tool answers with a JSON-RPC result) when called on (\S+)$`, st.everyNamedTool)
	sc.Step(`^every tool the profile names that anonymous tools/list shows answers with a JSON-RPC result or the 401$`, st.everyListedAnswers)
	sc.Step(`^the caller writes a fresh marker to (\S+)$`, st.writeMarker)
}

// writeMarker writes a value no earlier run wrote with the current caller:
// the control that a write the caller may make succeeds. When it does not,
// what the scenario would judge next cannot be seen, and the scenario is
// not run; the scenario that is about such writes judges the host on it.
func (st *sourceState) writeMarker(ctx context.Context, path string) error {
	path, err := st.expand(path)
	if err != nil {
		return err
	}
	nonce := make([]byte, 8)
	_, _ = rand.Read(nonce)
	marker := "conform-marker-" + hex.EncodeToString(nonce)
	st.vars["marker"] = marker
	tool := st.Target.Profile.Tools.Write
	args := st.toolArguments(tool, path)
	args["content"] = marker + "\n"
	if err := st.callTool(ctx, tool, args); err != nil {
		return err
	}
	if _, ok := st.lastSuccess(); !ok {
		return st.skip(fmt.Sprintf("the control write of %s with %s did not succeed (%s), so what a refused call leaves behind cannot be seen; "+
			"the scenario \"A credential in the Authorization header admits a privileged tool\" judges such writes", path, tool, describe(st.reply)))
	}
	return nil
}

// markerShown is the other half of the control: the read tool's output
// shape is not shown (source 4, "Gaps"), so a read that fails, or does not
// show the value written, leaves the suite blind to writes, and the
// scenario not run.
func (st *sourceState) markerShown() error {
	if err := st.needReply(); err != nil {
		return err
	}
	if tr, ok := st.lastSuccess(); !ok || !strings.Contains(tr.Text, st.vars["marker"]) {
		return st.skip(fmt.Sprintf("reading back what the control wrote did not show it (%s), so the suite cannot see whether a refused call wrote; "+
			"check that tools.read and paths.writable name a tool and a file that read what tools.write wrote", describe(st.reply)))
	}
	return nil
}

// markerKept judges that nothing wrote over the marker since the control.
// The same read worked in the control, so one that fails now says the
// refused call changed the file too.
func (st *sourceState) markerKept(other string) error {
	if err := st.needReply(); err != nil {
		return err
	}
	tr, ok := st.lastSuccess()
	if !ok {
		return st.depart("read of the file the control wrote, after the refused call", "HTTP 200 with a tool result that is not an error, as in the control", describe(st.reply), st.reply.Last())
	}
	if !strings.Contains(tr.Text, st.vars["marker"]) || strings.Contains(tr.Text, other) {
		return st.depart("the file after the refused call", fmt.Sprintf("still %q, as the control wrote it", st.vars["marker"]), wire.Quote(tr.Text), st.reply.Last())
	}
	return nil
}

// noResultFor judges one request of a batch by its answer alone: a result
// means it reached a tool. An error, no answer, or a refusal of the whole
// batch all leave it unanswered, and the source does not say which a host
// gives (MCP 2025-06-18 removed batches, so a host may refuse them all).
func (st *sourceState) noResultFor(id string) error {
	if err := st.needReply(); err != nil {
		return err
	}
	if m := st.reply.ResponseTo(id); m != nil && m.Result != nil {
		return st.depart(fmt.Sprintf("the response to request %s of the batch", id), "no JSON-RPC result: the request is not on the anonymous allowlist",
			fmt.Sprintf("HTTP %d with a result for it: %s", st.reply.Status, wire.Quote(string(m.Result))), st.reply.Last())
	}
	return nil
}

// callWithQueryCredential calls a tool with the target's credential as the
// access_token query parameter (the form of RFC 6750 section 2.3) and no
// Authorization header. Source 5.1 says credentials are presented in the
// Authorization header, so the caller is as anonymous as one without any.
func (st *sourceState) callWithQueryCredential(ctx context.Context, tool, path string) error {
	if st.Target.Credential == "" {
		return st.skip(st.Target.Lacks("credential"))
	}
	tool, err := st.expand(tool)
	if err != nil {
		return err
	}
	if path, err = st.expand(path); err != nil {
		return err
	}
	client, err := st.queryTokenClient()
	if err != nil {
		return err
	}
	r, err := client.Call(ctx, "", "tools/call", map[string]any{"name": tool, "arguments": st.toolArguments(tool, path)})
	st.called, st.calledAs = tool, ""
	return st.took(r, err)
}
