package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/wire"
)

// registerMCP binds the steps that call {base}/mcp and judge its replies.
func (st *State) registerMCP(sc stepContext) {
	// Who calls (source 5.1: credentials travel in the Authorization header).
	sc.Step(`^an anonymous caller$`, st.anonymous)
	sc.Step(`^a caller with the target's credential$`, st.withCredential)
	sc.Step(`^a caller with a credential issued by the peer$`, st.withPeerCredential)
	sc.Step(`^a caller presenting the Authorization header "([^"]*)"$`, st.withHeader)
	sc.Step(`^a caller allowed to call (.+)$`, st.allowedToCall)
	sc.Step(`^a caller allowed to perform (\S+)$`, st.allowedToPerform)
	sc.Step(`^an anonymous caller allowed to call (\S+)$`, st.anonymousAllowedToCall)

	// What it sends.
	sc.Step(`^the caller sends "([^"]*)"$`, st.sendMethod)
	sc.Step(`^the caller calls (\S+) on (\S+)$`, st.callOn)
	sc.Step(`^the caller attempts the operation (\S+) on (\S+)$`, st.attemptOperation)
	sc.Step(`^the caller calls the tool "([^"]*)" with arguments:$`, st.callWithArguments)
	sc.Step(`^the caller calls a tool name that tools/list does not show$`, st.callUnlisted)
	sc.Step(`^the caller posts to /mcp with Content-Type "([^"]*)":$`, st.postRaw)

	// Preconditions that make a negative check fail for the right reason.
	sc.Step(`^an anonymous tools/list answers 200 with a JSON-RPC result$`, st.toolsListAnswers)
	sc.Step(`^the call succeeded, which shows its provider implements the operation$`, st.callSucceeded)

	// What comes back.
	sc.Step(`^the HTTP status is (\d+)$`, st.statusIs)
	sc.Step(`^the HTTP status is a 4xx$`, st.statusIs4xx)
	sc.Step(`^the reply carries a JSON-RPC result$`, st.hasResult)
	sc.Step(`^the reply carries no JSON-RPC result$`, st.hasNoResult)
	sc.Step(`^the "([^"]*)" header is a Bearer challenge whose resource_metadata is "([^"]*)"$`, st.bearerChallenge)
	sc.Step(`^the "([^"]*)" header begins with "([^"]*)"$`, st.headerBegins)
	sc.Step(`^the body is a JSON object whose "([^"]*)" is "([^"]*)"$`, st.bodyField)
	sc.Step(`^the reply is remembered as "([^"]*)"$`, st.remember)
	sc.Step(`^the reply is the same as "([^"]*)" in status, challenge and body$`, st.sameAs)
	sc.Step(`^the tool result is an error$`, func(ctx context.Context) error { return st.toolError(ctx, true) })
	sc.Step(`^the tool result is not an error$`, func(ctx context.Context) error { return st.toolError(ctx, false) })
	sc.Step(`^the tool result text is "(.*)"$`, st.toolTextIs)
	sc.Step(`^the tool result text is the AFS_FORBIDDEN of (\S+) on (\S+)$`, st.forbiddenTextIs)
	sc.Step(`^the tool result text gives an error code, then the path (\S+), then an explanation$`, st.toolTextShape)
	sc.Step(`^the call does not succeed$`, st.doesNotSucceed)
	sc.Step(`^tools/list names (\S+)$`, func(name string) error { return st.listNames(name, true) })
	sc.Step(`^tools/list does not name (\S+)$`, func(name string) error { return st.listNames(name, false) })
	sc.Step(`^tools/list shows the content tools exactly when the host declares collections$`, st.contentTools)
	sc.Step(`^every privileged tool answers 401 when called on (\S+)$`, st.everyPrivileged)
	sc.Step(`^every allowlisted tool answers with a JSON-RPC result when called on (\S+)$`, st.everyAllowlisted)
	sc.Step(`^every tool the profile names that anonymous tools/list shows answers with a JSON-RPC result or the 401$`, st.everyListedAnswers)
	sc.Step(`^the capabilities (include|do not include) "([^"]*)"$`, st.capabilities)
	sc.Step(`^the listing (names|does not name) the last segment of (\S+)$`, st.listingNames)
}

func (st *State) anonymous() error { st.auth, st.byAllowlist = "", false; return nil }

func (st *State) withCredential() error {
	if st.Target.Credential == "" {
		return st.skip(st.Target.Lacks("credential"))
	}
	st.auth = "Bearer " + st.Target.Credential
	return nil
}

func (st *State) withPeerCredential() error {
	if st.Target.PeerCredential == "" {
		return st.skip(st.Target.Lacks("peer"))
	}
	st.auth = "Bearer " + st.Target.PeerCredential
	return nil
}

// withHeader presents an Authorization header with the value given; an empty
// value is a header sent empty, not an anonymous caller (source 7.2, "a
// header was sent but is malformed").
func (st *State) withHeader(value string) error {
	v, err := st.expand(value)
	st.auth = v
	if v == "" {
		st.auth = mcpclient.EmptyAuthorization
	}
	return err
}

func (st *State) sendMethod(ctx context.Context, method string) error {
	r, err := st.MCP.Call(ctx, st.auth, method, mcpclient.DefaultParams(method))
	st.called = ""
	if err == nil && method == "initialize" && st.MCP.Revision() == mcpclient.Modern &&
		(r.Status == http.StatusBadRequest || r.Status == http.StatusNotFound || r.Status == http.StatusMethodNotAllowed) {
		// Source 4 and 5.3 name initialize; MCP 2026-07-28 removed it
		// (changelog, "Major changes" 2), so a host that speaks only that
		// revision cannot answer it with a result, and its refusal is the
		// protocol's, not the allowlist's.
		return st.skip(fmt.Sprintf("the host speaks MCP 2026-07-28, which has no initialize, and answered it HTTP %d; "+
			"the source's initialize applies to hosts of earlier revisions (set mcp_revision to pin one the host speaks)", r.Status))
	}
	return st.took(r, err)
}

// took records a reply; a transport failure is the host's (it did not answer).
func (st *State) took(r *mcpclient.Reply, err error) error {
	if err != nil {
		if lost := st.stopped(err); lost != nil {
			return lost
		}
		if r != nil && len(r.Exchanges) > 0 {
			return st.depart("an HTTP response", "a response", err.Error(), r.Exchanges...)
		}
		return st.depart("an HTTP response", "a response from "+st.Target.Profile.Target, err.Error())
	}
	if why := r.ProtocolRefusal(); why != "" {
		// A refusal for the base protocol says the harness and the host
		// disagree on the MCP revision, not how the host treats the request
		// the scenario is about (MCP 2026-07-28, transport "Server
		// Validation" and "Protocol Version Header").
		return st.skip(fmt.Sprintf("the host refused the request for the base protocol, not for what this scenario checks: %s; "+
			"the suite spoke MCP %s (set mcp_revision to pin another)", why, revisionOrNone(st.MCP.Revision())))
	}
	st.answered()
	st.reply = r
	return nil
}

// revisionOrNone names a revision, or says none was learned.
func revisionOrNone(r string) string {
	if r == "" {
		return "2026-07-28 first (no reply has shown which revision the host speaks)"
	}
	return r
}

// toolArguments builds the arguments of a path tool: {"path": p}, and a
// content for the write tool (PRODUCT.md section 4: the profile's argument shape).
func (st *State) toolArguments(tool, path string) map[string]any {
	args := map[string]any{"path": path}
	if tool == st.Target.Profile.Tools.Write {
		args["content"] = "written by the conformance suite\n"
	}
	return args
}

func (st *State) callOn(ctx context.Context, tool, path string) error {
	tool, err := st.expand(tool)
	if err != nil {
		return err
	}
	if path, err = st.expand(path); err != nil {
		return err
	}
	return st.callTool(ctx, tool, st.toolArguments(tool, path))
}

func (st *State) callTool(ctx context.Context, tool string, args any) error {
	r, err := st.MCP.Call(ctx, st.auth, "tools/call", map[string]any{"name": tool, "arguments": args})
	st.called, st.calledAs = tool, st.auth
	if err := st.took(r, err); err != nil {
		return err
	}
	if st.byAllowlist && st.auth == "" && r.Status == http.StatusUnauthorized {
		// The profile said anonymous callers may call the tool; the host
		// says otherwise. Whichever is wrong, this scenario is about the
		// path policy, not the allowlist: the scenario calling every
		// allowlisted tool judges the host on that.
		return st.skip(fmt.Sprintf("calls %s anonymously because tools.allowlisted names it, but the host answered 401: if the host is right, take %s out of tools.allowlisted (the scenario \"Every allowlisted tool the profile names reaches the tool\" judges the host on it)", tool, tool))
	}
	return nil
}

// toolFor maps an operation named by the source (list, stat, read, write),
// as the feature writes it (a placeholder such as
// {paths.unsupported.operation} is expanded first), to the host's tool for it.
func (st *State) toolFor(operation string) (string, error) {
	operation, err := st.expand(operation)
	if err != nil {
		return "", err
	}
	t := st.Target.Profile.Tools
	switch operation {
	case "list":
		return t.List, nil
	case "stat":
		return t.Stat, nil
	case "read":
		return t.Read, nil
	case "write":
		return t.Write, nil
	}
	return "", fmt.Errorf("no tool for operation %q: the profile names tools for list, stat, read and write", operation)
}

func (st *State) attemptOperation(ctx context.Context, operation, path string) error {
	tool, err := st.toolFor(operation)
	if err != nil {
		return err
	}
	return st.callOn(ctx, tool, path)
}

func (st *State) callWithArguments(ctx context.Context, tool string, doc *godog.DocString) error {
	text, err := st.expand(doc.Content)
	if err != nil {
		return err
	}
	var args any
	if err := json.Unmarshal([]byte(text), &args); err != nil {
		return fmt.Errorf("arguments in the feature are not JSON: %w", err)
	}
	return st.callTool(ctx, tool, args)
}

// unlistedTool is a name no host is expected to offer; the step checks that.
const unlistedTool = "conform_unlisted_tool_0"

func (st *State) callUnlisted(ctx context.Context) error {
	names, err := st.anonymousToolNames(ctx)
	if err != nil {
		return err
	}
	name := unlistedName(names)
	st.vars["unlisted_tool"] = name
	return st.callTool(ctx, name, map[string]any{"path": st.Target.Profile.Paths.Open})
}

// anonymousToolNames asks tools/list anonymously, which source 5.3 allows.
func (st *State) anonymousToolNames(ctx context.Context) ([]string, error) {
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

func (st *State) toolsListAnswers(ctx context.Context) error {
	_, err := st.anonymousToolNames(ctx)
	return err
}

// callSucceeded is a premise: a call that did not succeed shows nothing
// about what its provider implements, and the scenario that is about such
// calls judges the host on it.
func (st *State) callSucceeded() error {
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
func (st *State) lastSuccess() (*mcpclient.ToolResult, bool) {
	if st.reply == nil || st.reply.Status != http.StatusOK {
		return nil, false
	}
	tr, err := st.reply.ToolResult()
	return tr, err == nil && !tr.IsError
}

func (st *State) postRaw(ctx context.Context, contentType string, doc *godog.DocString) error {
	body, err := st.expand(doc.Content)
	if err != nil {
		return err
	}
	r, err := st.MCP.Send(ctx, st.auth, contentType, []byte(body))
	st.called = ""
	return st.took(r, err)
}

// describe says in a few words what a reply was, for "actual".
func describe(r *mcpclient.Reply) string {
	if r == nil {
		return "no reply"
	}
	s := fmt.Sprintf("HTTP %d", r.Status)
	switch {
	case r.Message != nil && r.Message.Error != nil:
		s += fmt.Sprintf(" with JSON-RPC error %d %q", r.Message.Error.Code, r.Message.Error.Message)
	case r.Message != nil && r.Message.Result != nil:
		s += " with a JSON-RPC result"
	case len(r.Body) > 0:
		s += fmt.Sprintf(" with body %s", abbreviate(string(r.Body)))
	}
	return s
}

func abbreviate(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		return fmt.Sprintf("%q…", s[:200])
	}
	return fmt.Sprintf("%q", s)
}

func (st *State) needReply() error {
	if st.reply == nil {
		return fmt.Errorf("no MCP reply yet: the scenario must send something before judging a reply")
	}
	return nil
}

func (st *State) statusIs(want int) error {
	if err := st.needReply(); err != nil {
		return err
	}
	if st.reply.Status != want {
		return st.depart("HTTP status", want, describe(st.reply), st.reply.Last())
	}
	return nil
}

func (st *State) statusIs4xx() error {
	if err := st.needReply(); err != nil {
		return err
	}
	if st.reply.Status < 400 || st.reply.Status > 499 {
		return st.depart("HTTP status", "a 4xx status", describe(st.reply), st.reply.Last())
	}
	return nil
}

func (st *State) hasResult() error {
	if err := st.needReply(); err != nil {
		return err
	}
	if st.reply.Message == nil || st.reply.Message.Result == nil {
		return st.depart("JSON-RPC result", "a JSON-RPC response with a result", describe(st.reply), st.reply.Last())
	}
	return nil
}

func (st *State) hasNoResult() error {
	if err := st.needReply(); err != nil {
		return err
	}
	if st.reply.Message != nil && st.reply.Message.Result != nil {
		return st.depart("JSON-RPC result", "no JSON-RPC result (the call never reached a tool)", describe(st.reply), st.reply.Last())
	}
	return nil
}

func (st *State) bearerChallenge(header, want string) error {
	if err := st.needReply(); err != nil {
		return err
	}
	want, err := st.expand(want)
	if err != nil {
		return err
	}
	values := st.reply.Header.Values(header)
	if len(values) == 0 {
		return st.depart(header+" header", fmt.Sprintf("Bearer resource_metadata=%q", want), "no such header", st.reply.Last())
	}
	if wire.ChallengeParam(values, "Bearer", "resource_metadata") == want {
		return nil
	}
	return st.depart(header+" header", fmt.Sprintf("a Bearer challenge with resource_metadata=%q", want), strings.Join(values, ", "), st.reply.Last())
}

func (st *State) headerBegins(header, prefix string) error {
	if err := st.needReply(); err != nil {
		return err
	}
	got := st.reply.Header.Get(header)
	if !strings.HasPrefix(strings.ToLower(got), strings.ToLower(prefix)) {
		return st.depart(header+" header", fmt.Sprintf("beginning with %q", prefix), fmt.Sprintf("%q", got), st.reply.Last())
	}
	return nil
}

func (st *State) bodyField(field, want string) error {
	if err := st.needReply(); err != nil {
		return err
	}
	var body map[string]any
	if err := json.Unmarshal(st.reply.Body, &body); err != nil {
		return st.depart("body", "a JSON object", abbreviate(string(st.reply.Body)), st.reply.Last())
	}
	got, ok := body[field].(string)
	if !ok || got != want {
		return st.depart(fmt.Sprintf("body member %q", field), fmt.Sprintf("%q", want), fmt.Sprintf("%v", body[field]), st.reply.Last())
	}
	return nil
}

func (st *State) remember(name string) error {
	if err := st.needReply(); err != nil {
		return err
	}
	st.remembered[name] = st.reply
	return nil
}

// sameAs compares two replies as the source 7.2 says a 401 is the same for
// every cause: status, challenge and body. Of the challenge, source 7.2 fixes
// only the Bearer scheme and resource_metadata; RFC 6750 section 3.1 lets a
// host add error="invalid_token" when it rejects a token, so only what the
// source fixes is compared.
func (st *State) sameAs(name string) error {
	if err := st.needReply(); err != nil {
		return err
	}
	other, ok := st.remembered[name]
	if !ok {
		return fmt.Errorf("no reply remembered as %q", name)
	}
	a, b := other, st.reply
	switch {
	case a.Status != b.Status:
		return st.depart("status compared with "+name, a.Status, b.Status, a.Last(), b.Last())
	case resourceMetadata(a) != resourceMetadata(b):
		return st.depart("challenge compared with "+name, fmt.Sprintf("a Bearer challenge with resource_metadata=%q", resourceMetadata(a)), fmt.Sprintf("%q", b.Header.Get("WWW-Authenticate")), a.Last(), b.Last())
	case !bytes.Equal(bytes.TrimSpace(a.Body), bytes.TrimSpace(b.Body)):
		return st.depart("body compared with "+name, abbreviate(string(a.Body)), abbreviate(string(b.Body)), a.Last(), b.Last())
	}
	return nil
}

// resourceMetadata returns the resource_metadata of the reply's Bearer
// challenge, or "" when it has none.
func resourceMetadata(r *mcpclient.Reply) string {
	return wire.ChallengeParam(r.Header.Values("WWW-Authenticate"), "Bearer", "resource_metadata")
}

// toolResult decodes the last reply as a tools/call result. Source 7.1: a 200
// is not success; the result is judged by result.isError. A result is the
// tool's only if the tool exists (toolExists).
func (st *State) toolResult(ctx context.Context) (*mcpclient.ToolResult, error) {
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

func (st *State) toolError(ctx context.Context, want bool) error {
	tr, err := st.toolResult(ctx)
	if err != nil {
		return err
	}
	if tr.IsError != want {
		return st.depart("result.isError", want, fmt.Sprintf("%v with text %s", tr.IsError, abbreviate(tr.Text)), st.reply.Last())
	}
	return nil
}

func (st *State) toolTextIs(ctx context.Context, want string) error {
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
func (st *State) toolTextShape(ctx context.Context, path string) error {
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
func (st *State) forbiddenTextIs(ctx context.Context, operation, p string) error {
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
func (st *State) doesNotSucceed() error {
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
		"a refusal of any kind, as for the path's canonical spelling", "success: "+abbreviate(tr.Text), st.reply.Last())
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

func (st *State) listNames(name string, want bool) error {
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
	if slices.Contains(names, name) != want {
		expect := "a tool named " + name
		if !want {
			expect = "no tool named " + name
		}
		return st.depart("tools/list", expect, strings.Join(names, ", "), st.reply.Last())
	}
	return nil
}

// contentTools checks source section 1 both ways, as the profile declares.
// A host may show some tools only to callers with a credential (which tools
// anonymous callers may use is not shown, source 5), so the list asked with
// the target's credential, when there is one, counts too.
func (st *State) contentTools(ctx context.Context) error {
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
func (st *State) succeeded(ctx context.Context, arg, what string) (string, *mcpclient.ToolResult, error) {
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

func (st *State) capabilities(ctx context.Context, mode, operation string) error {
	operation, tr, err := st.succeeded(ctx, operation, "stat result")
	if err != nil {
		return err
	}
	caps, ok := tr.Capabilities()
	if !ok {
		return st.depart("stat result", "a capabilities list (source section 1)", abbreviate(tr.Text), st.reply.Last())
	}
	if slices.Contains(caps, operation) != (mode == "include") {
		return st.depart("capabilities", fmt.Sprintf("%s %q", mode, operation), fmt.Sprintf("[%s]", strings.Join(caps, ", ")), st.reply.Last())
	}
	return nil
}

// listingNames looks for a child's name in an afs_list result, in whatever
// shape the host gives it (the source does not show one).
func (st *State) listingNames(ctx context.Context, mode, path string) error {
	path, tr, err := st.succeeded(ctx, path, "listing")
	if err != nil {
		return err
	}
	name := path[strings.LastIndex(path, "/")+1:]
	if tr.Names(name) != (mode == "names") {
		return st.depart("listing", fmt.Sprintf("%s %q", mode, name), abbreviate(tr.Text), st.reply.Last())
	}
	return nil
}

// everyPrivileged calls each tool the profile names as privileged, as the
// current caller, and expects the 401 of source 7.2 from each: a credential
// is needed for all of them, not only the one other scenarios use.
func (st *State) everyPrivileged(ctx context.Context, path string) error {
	return st.everyTool(ctx, "tools.privileged", st.Target.Profile.Tools.Privileged, path, func(r *mcpclient.Reply) (string, bool) {
		return "HTTP 401", r.Status == 401
	}, nil)
}

// everyAllowlisted calls each tool the profile names as allowlisted and
// expects the call to reach the tool (source 5.3): HTTP 200 with a JSON-RPC
// result. Whether the operation then succeeds is the tool's affair.
func (st *State) everyAllowlisted(ctx context.Context, path string) error {
	return st.everyTool(ctx, "tools.allowlisted", st.Target.Profile.Tools.Allowlisted, path, func(r *mcpclient.Reply) (string, bool) {
		return "HTTP 200 with a JSON-RPC result", r.Status == 200 && r.Message != nil && r.Message.Result != nil
	}, st.toolExists)
}

// everyTool calls each of tools on path and judges each reply with ok; then,
// when given, with reached, which checks that the tool exists.
func (st *State) everyTool(ctx context.Context, key string, tools []string, path string, ok func(*mcpclient.Reply) (string, bool),
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
