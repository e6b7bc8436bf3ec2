package steps

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/wire"
)

// registerService binds the steps that judge what the host's tools answer
// (source 1 and 2): tools/list, a tool result and its text, capabilities and
// listings.
func (st *sourceState) registerService(sc stepContext) {
	sc.Step(`^an anonymous tools/list answers 200 with a JSON-RPC result$`, st.toolsListAnswers)
	sc.Step(`^the call succeeded$`, st.callSucceeded)
	sc.Step(`^the reply carries (a|no) JSON-RPC result(?: for the request with id (\S+))?$`, st.carriesResult)
	sc.Step(`^the tool result (is an error|is not an error|shows the marker|still shows the marker and not "([^"]*)")$`, st.toolResultIs)
	sc.Step(`^the tool result text (?:is "(.*)"|is the AFS_FORBIDDEN of (\S+) on (\S+)|gives an error code, then the path (\S+), then an explanation)$`, st.toolText)
	sc.Step(`^the call does not succeed$`, st.doesNotSucceed)
	sc.Step(`^tools/list (?:names (\S+)|shows the content tools exactly when the host declares collections)$`, st.toolsList)
	sc.Step(`^the capabilities (include|do not include) "([^"]*)"$`, st.capabilities)
	sc.Step(`^the listing (names|does not name) the last segment of (\S+)$`, st.listingNames)
}

// carriesResult judges whether the reply (or, in a batch, its response to
// one request) carries a JSON-RPC result.
func (st *sourceState) carriesResult(which, id string) error {
	switch {
	case id != "":
		return st.noResultFor(id)
	case which == "a":
		return st.hasResult()
	}
	return st.hasNoResult()
}

// toolResultIs judges the last tool result: an error or not (source 7.1),
// or what it shows of the marker a control wrote.
func (st *sourceState) toolResultIs(ctx context.Context, what, other string) error {
	switch what {
	case "is an error":
		return st.toolError(ctx, true)
	case "is not an error":
		return st.toolError(ctx, false)
	case "shows the marker":
		return st.markerShown()
	}
	return st.markerKept(other)
}

// toolText judges the last tool result's text: whole, as source 7.4's
// AFS_FORBIDDEN text of an operation on a path, or by its shape (source 2).
func (st *sourceState) toolText(ctx context.Context, text, operation, forbidden, shaped string) error {
	switch {
	case operation != "":
		return st.forbiddenTextIs(ctx, operation, forbidden)
	case shaped != "":
		return st.toolTextShape(ctx, shaped)
	}
	return st.toolTextIs(ctx, text)
}

// toolsList judges a tools/list result: that it names a tool, or that it
// shows the content tools as the host declares collections (source 1).
func (st *sourceState) toolsList(ctx context.Context, name string) error {
	if name != "" {
		return st.listNames(name)
	}
	return st.contentTools(ctx)
}

// anonymousToolNames asks tools/list anonymously, which source 5.3 allows.
func (st *sourceState) anonymousToolNames(ctx context.Context) ([]string, error) {
	r, err := st.MCP.Call(ctx, "", "tools/list", map[string]any{})
	if err != nil {
		return nil, st.took(r, err)
	}
	if r.Status != 200 || r.Message == nil || r.Message.Result == nil {
		return nil, st.depart("anonymous tools/list (a precondition of this check)", "HTTP 200 with a JSON-RPC result", describe(r), r.Exchanges...)
	}
	names, err := r.ToolNames()
	if err != nil {
		return nil, st.depart("anonymous tools/list result", "a list of tools", err.Error(), r.Last())
	}
	return names, nil
}

func (st *sourceState) toolsListAnswers(ctx context.Context) error {
	_, err := st.anonymousToolNames(ctx)
	return err
}

// callSucceeded is a premise: a call that did not succeed shows nothing
// about what its provider implements, and the scenario that is about such
// calls judges the host on it.
func (st *sourceState) callSucceeded() error {
	if err := st.needReply(); err != nil {
		return err
	}
	if _, ok := st.lastSuccess(); !ok {
		return st.skip(fmt.Sprintf("the call of %s did not succeed (%s), so it shows nothing of what the provider implements", st.called, describe(st.reply)))
	}
	return nil
}

// lastSuccess is the last reply's tool result when the call succeeded:
// HTTP 200 with a result that is not an error. For premises and controls,
// which say "not run" rather than judge the call.
func (st *sourceState) lastSuccess() (*mcpclient.ToolResult, bool) {
	if st.reply == nil || st.reply.Status != http.StatusOK {
		return nil, false
	}
	tr, err := st.reply.ToolResult()
	return tr, err == nil && !tr.IsError
}

func (st *sourceState) hasResult() error {
	if err := st.needReply(); err != nil {
		return err
	}
	if st.reply.Message == nil || st.reply.Message.Result == nil {
		return st.depart("JSON-RPC result", "a JSON-RPC response with a result", describe(st.reply), st.reply.Last())
	}
	return nil
}

func (st *sourceState) hasNoResult() error {
	if err := st.needReply(); err != nil {
		return err
	}
	if st.reply.Message != nil && st.reply.Message.Result != nil {
		return st.depart("JSON-RPC result", "no JSON-RPC result (the call never reached a tool)", describe(st.reply), st.reply.Last())
	}
	return nil
}

// toolResult decodes the last reply as a tools/call result. Source 7.1: a 200
// is not success; the result is judged by result.isError. A result is the
// tool's only if the tool exists (toolExists).
func (st *sourceState) toolResult(ctx context.Context) (*mcpclient.ToolResult, error) {
	if err := st.needReply(); err != nil {
		return nil, err
	}
	if st.reply.Status != 200 {
		return nil, st.depart("tools/call reply", "HTTP 200 with a tool result", describe(st.reply), st.reply.Last())
	}
	tr, err := st.reply.ToolResult()
	if err != nil {
		return nil, st.depart("tools/call result", "a tool result with isError", fmt.Sprintf("%s (%v)", describe(st.reply), err), st.reply.Last())
	}
	if st.called != "" {
		if err := st.toolExists(ctx, st.called, st.calledAs); err != nil {
			return nil, err
		}
	}
	return tr, nil
}

func (st *sourceState) toolError(ctx context.Context, want bool) error {
	tr, err := st.toolResult(ctx)
	if err != nil {
		return err
	}
	if tr.IsError != want {
		return st.depart("result.isError", want, fmt.Sprintf("%v with text %s", tr.IsError, wire.Quote(tr.Text)), st.reply.Last())
	}
	return nil
}

func (st *sourceState) toolTextIs(ctx context.Context, want string) error {
	want, err := st.expand(want)
	if err != nil {
		return err
	}
	tr, err := st.toolResult(ctx)
	if err != nil {
		return err
	}
	if strings.TrimSpace(tr.Text) != want {
		return st.depart("result text", fmt.Sprintf("%q", want), fmt.Sprintf("%q", tr.Text), st.reply.Last())
	}
	return nil
}

// toolTextShape checks source section 2: when isError is true, the result
// text is an error code, then the path, then an explanation. The order is
// the source's, so words between the code and the path do not stand in for
// the explanation that must follow the path.
func (st *sourceState) toolTextShape(ctx context.Context, path string) error {
	path, err := st.expand(path)
	if err != nil {
		return err
	}
	tr, err := st.toolResult(ctx)
	if err != nil {
		return err
	}
	text := strings.TrimSpace(tr.Text)
	code := errorCodePrefix(text)
	rest := text[len(code):]
	at := strings.Index(rest, path)
	switch {
	case code == "" || !isErrorCode(code):
		return st.depart("result text", "an error code first (e.g. AFS_FORBIDDEN)", fmt.Sprintf("%q", text), st.reply.Last())
	case at < 0:
		return st.depart("result text", fmt.Sprintf("the path %s after the error code", path), fmt.Sprintf("%q", text), st.reply.Last())
	case strings.Trim(rest[at+len(path):], " \t\n:;,.-") == "":
		return st.depart("result text", fmt.Sprintf("an explanation after the path %s (source 2: an error code, then the path, then an explanation)", path),
			fmt.Sprintf("%q: nothing follows the path", text), st.reply.Last())
	}
	return nil
}

// forbiddenExplanation is source 7.4's AFS_FORBIDDEN explanation by operation.
var forbiddenExplanation = map[string]string{
	"write": "cannot write base paths; use a resolver overlay or internal code",
	"read":  "cannot read base paths; declare a networkRead rule or use an overlay",
	"list":  "cannot list base paths; declare a networkRead rule or use an overlay",
	"stat":  "cannot stat base paths; declare a networkRead rule or use an overlay",
}

// forbiddenTextIs checks the whole AFS_FORBIDDEN text of source 7.4 for an
// operation on a path.
func (st *sourceState) forbiddenTextIs(ctx context.Context, operation, p string) error {
	operation, err := st.expand(operation)
	if err != nil {
		return err
	}
	explanation, ok := forbiddenExplanation[operation]
	if !ok {
		return fmt.Errorf("source 7.4 gives no AFS_FORBIDDEN explanation for the operation %q", operation)
	}
	if p, err = st.expand(p); err != nil {
		return err
	}
	return st.toolTextIs(ctx, fmt.Sprintf("AFS_FORBIDDEN: Forbidden at %s: network clients %s", p, explanation))
}

// doesNotSucceed checks source 5.7 for another spelling of a closed path:
// only the host's declaration opens a path, so no spelling succeeds where the
// canonical one is refused. Which refusal a host gives is not shown.
func (st *sourceState) doesNotSucceed() error {
	if err := st.needReply(); err != nil {
		return err
	}
	if st.reply.Status != 200 {
		return nil
	}
	tr, err := st.reply.ToolResult()
	if err != nil || tr.IsError {
		return nil
	}
	return st.depart("a closed path under another spelling (source 5.7: only the host's declaration opens a path)",
		"a refusal of any kind, as for the path's canonical spelling", "success: "+wire.Quote(tr.Text), st.reply.Last())
}

// errorCodePrefix returns the text's leading word, up to a colon or space:
// the source puts the error code first but shows no separator after it.
func errorCodePrefix(text string) string {
	if i := strings.IndexAny(text, ": \t\n"); i >= 0 {
		return text[:i]
	}
	return text
}

func isErrorCode(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

func (st *sourceState) listNames(name string) error {
	name, err := st.expand(name)
	if err != nil {
		return err
	}
	if err := st.needReply(); err != nil {
		return err
	}
	names, err := st.reply.ToolNames()
	if err != nil {
		return st.depart("tools/list result", "a list of tools", err.Error(), st.reply.Last())
	}
	if !slices.Contains(names, name) {
		return st.depart("tools/list", "a tool named "+name, strings.Join(names, ", "), st.reply.Last())
	}
	return nil
}

// contentTools checks source section 1 both ways, as the profile declares.
// A host may show some tools only to callers with a credential (which tools
// anonymous callers may use is not shown, source 5), so the list asked with
// the target's credential, when there is one, counts too.
func (st *sourceState) contentTools(ctx context.Context) error {
	if err := st.needReply(); err != nil {
		return err
	}
	names, err := st.reply.ToolNames()
	if err != nil {
		return st.depart("tools/list result", "a list of tools", err.Error(), st.reply.Last())
	}
	if st.Target.Credential != "" {
		r, err := st.MCP.Call(ctx, "Bearer "+st.Target.Credential, "tools/list", map[string]any{})
		if err := st.took(r, err); err != nil {
			return err
		}
		more, err := r.ToolNames()
		if r.Status != 200 || err != nil {
			return st.depart("tools/list with the target's credential", "HTTP 200 with a list of tools", describe(r), r.Last())
		}
		for _, n := range more {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	declared := st.Target.Profile.ContentCollections
	for _, c := range st.Target.Profile.Tools.Content {
		if slices.Contains(names, c) != declared {
			want := fmt.Sprintf("no content tool %s (the profile says no collections are declared)", c)
			if declared {
				want = fmt.Sprintf("the content tool %s (the profile says collections are declared)", c)
			}
			return st.depart("content tools in tools/list", want, strings.Join(names, ", "), st.reply.Last())
		}
	}
	return nil
}

// succeeded expands a step's argument and returns the last tool result,
// which must not be an error: what the step checks next is in a result the
// host meant as a success.
func (st *sourceState) succeeded(ctx context.Context, arg, what string) (string, *mcpclient.ToolResult, error) {
	arg, err := st.expand(arg)
	if err != nil {
		return "", nil, err
	}
	tr, err := st.toolResult(ctx)
	if err != nil {
		return "", nil, err
	}
	if tr.IsError {
		return "", nil, st.depart(what, "a result that is not an error", fmt.Sprintf("an error: %q", tr.Text), st.reply.Last())
	}
	return arg, tr, nil
}

func (st *sourceState) capabilities(ctx context.Context, mode, operation string) error {
	operation, tr, err := st.succeeded(ctx, operation, "stat result")
	if err != nil {
		return err
	}
	caps, ok := tr.Capabilities()
	if !ok {
		return st.depart("stat result", "a capabilities list (source section 1)", wire.Quote(tr.Text), st.reply.Last())
	}
	if slices.Contains(caps, operation) != (mode == "include") {
		return st.depart("capabilities", fmt.Sprintf("%s %q", mode, operation), fmt.Sprintf("[%s]", strings.Join(caps, ", ")), st.reply.Last())
	}
	return nil
}

// listingNames looks for a child's name in an afs_list result, in whatever
// shape the host gives it (the source does not show one).
func (st *sourceState) listingNames(ctx context.Context, mode, path string) error {
	path, tr, err := st.succeeded(ctx, path, "listing")
	if err != nil {
		return err
	}
	name := path[strings.LastIndex(path, "/")+1:]
	if tr.Names(name) != (mode == "names") {
		return st.depart("listing", fmt.Sprintf("%s %q", mode, name), wire.Quote(tr.Text), st.reply.Last())
	}
	return nil
}
