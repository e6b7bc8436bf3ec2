// Package diagnose walks the diagnosis order of source section 7.5 for one
// tool call and names the gate that refused it, with the remedy
// (PRODUCT.md section 1.4: what `conform diagnose` prints). It stops at the
// first step that explains the failure and never guesses: a reply that the
// source's failure shapes (sections 7.1 to 7.4) do not describe gets a
// verdict that says so instead of a gate.
package diagnose

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/wire"
)

// Input is the call to diagnose and who makes it.
type Input struct {
	// Target is the host's base URL; the MCP endpoint is {Target}/mcp.
	Target string
	// Tool is the name of the tool whose call fails.
	Tool string
	// Path is the path argument of the call; optional.
	Path string
	// Arguments are further arguments of the call (e.g. content for a
	// write); optional. Path, when given, is sent as "path".
	Arguments map[string]any
	// Credential is the whole bearer token, or "" for an anonymous caller.
	// It is sent only in the Authorization header and never printed.
	Credential string
	// StatTool and ListTool name the host's afs_stat and afs_list (source
	// section 1); "" means those names.
	StatTool, ListTool string
	// ContentTools are the names known to be content tools, which appear only
	// when the host declares collections (source section 1); nil means
	// search_content, list_content and get_content.
	ContentTools []string
	// Rerun are more words for the command a remedy prints to diagnose the
	// call again: the connection flags this diagnosis was made with (a
	// gateway's header, --insecure), without which the printed command
	// would meet another answer. Secret values are the caller's to mask.
	Rerun []string
	// HTTP is the client every request goes through; nil means one with a
	// 30-second timeout.
	HTTP *http.Client
}

// Observation is one thing the diagnosis saw, in the order it saw it.
type Observation struct {
	// Step is the step of source section 7.5 the observation belongs to.
	Step int
	// What says in a sentence what was sent and what came back.
	What string
	// Exchange is the HTTP exchange behind the observation (masked), or nil
	// when the observation is a conclusion drawn from earlier ones.
	Exchange *wire.Exchange
}

// Gate values of a Verdict.
const (
	// NoGate: no gate refused the call (success, or a failure no gate explains).
	NoGate = 0
	// GateOneOrTwo stands for "gate 1 or gate 2": source section 7.2 answers
	// the method allowlist and the credential with the same 401, so the
	// diagnosis names both (source 7.5 step 3).
	GateOneOrTwo = 1
	// GatePathPolicy is gate 3, the path policy (AFS_FORBIDDEN).
	GatePathPolicy = 3
	// GateProvider is gate 4, the provider.
	GateProvider = 4
)

// Verdict is the diagnosis's conclusion.
type Verdict struct {
	// Step is the step of source section 7.5 where the diagnosis stopped
	// (1 to 5), or 0 when the call succeeds.
	Step int
	// Gate is NoGate, GateOneOrTwo, GatePathPolicy or GateProvider.
	Gate int
	// Summary says what happened; Remedy what to do about it.
	Summary, Remedy string
	// Result is the tool's result text on success or on an in-call error.
	Result string
	// Uncovered is true when the host answered in a way the source's failure
	// shapes do not describe, or with an in-call error no step of the
	// diagnosis order explains; Gate is then NoGate.
	Uncovered bool
}

// Report is what the diagnosis saw and what it concluded.
type Report struct {
	// Subject names the call diagnosed: tool, path, host and caller.
	Subject      string
	Observations []Observation
	Verdict      Verdict
}

// Tool names the source (section 1) and the reference host use.
const (
	defaultStatTool = "afs_stat"
	defaultListTool = "afs_list"
)

var defaultContentTools = []string{"search_content", "list_content", "get_content"}

// Diagnose walks source section 7.5 for the call in and returns what it saw
// and its verdict. The error is for bad input and the harness's own failures
// (including a cancelled ctx); whatever the host does is part of the Report.
func Diagnose(ctx context.Context, in Input) (Report, error) {
	base, err := checkInput(in)
	if err != nil {
		return Report{}, err
	}
	if in.StatTool == "" {
		in.StatTool = defaultStatTool
	}
	if in.ListTool == "" {
		in.ListTool = defaultListTool
	}
	if in.ContentTools == nil {
		in.ContentTools = defaultContentTools
	}
	hc := in.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	w := &walk{in: in, base: base, hc: hc, mcp: mcpclient.New(base+"/mcp", hc)}
	if in.Credential != "" {
		w.auth = "Bearer " + in.Credential
	}
	w.report.Subject = w.subject()
	v, err := w.run(ctx)
	if err != nil {
		return Report{}, err
	}
	w.report.Verdict = w.mask(v)
	return w.report, nil
}

// checkInput returns the base URL without a trailing slash, or why the input
// cannot be diagnosed.
func checkInput(in Input) (string, error) {
	base := strings.TrimRight(in.Target, "/")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("diagnose: the target must be an http or https URL, got %q", in.Target)
	}
	if u.User != nil {
		return "", errors.New("diagnose: the target must not carry credentials; pass the credential separately")
	}
	if strings.TrimSpace(in.Tool) == "" {
		return "", errors.New("diagnose: a tool name is required")
	}
	if _, err := json.Marshal(in.Arguments); err != nil {
		return "", fmt.Errorf("diagnose: the arguments cannot be sent as JSON: %w", err)
	}
	return base, nil
}

// walk is one diagnosis in progress.
type walk struct {
	in     Input
	base   string
	auth   string // Authorization header value, "" when anonymous
	hc     *http.Client
	mcp    *mcpclient.Client
	report Report
}

func (w *walk) subject() string {
	s := w.in.Tool
	if w.in.Path != "" {
		s += " on " + w.in.Path
	}
	who := "as an anonymous caller"
	if w.auth != "" {
		who = "with a credential"
	}
	return fmt.Sprintf("%s at %s, %s", s, w.base, who)
}

// mask hides the credential in text the diagnosis composed or passes on.
func (w *walk) mask(v Verdict) Verdict {
	v.Summary = wire.MaskSecret(v.Summary, w.in.Credential)
	v.Remedy = wire.MaskSecret(v.Remedy, w.in.Credential)
	v.Result = wire.MaskSecret(v.Result, w.in.Credential)
	return v
}

// observe records an observation. Exchanges are masked by wire already;
// bodies are masked once more in case a host echoes the credential.
func (w *walk) observe(step int, ex *wire.Exchange, format string, args ...any) {
	if ex != nil {
		c := *ex
		c.RequestBody = wire.MaskSecret(c.RequestBody, w.in.Credential)
		c.ResponseBody = wire.MaskSecret(c.ResponseBody, w.in.Credential)
		ex = &c
	}
	what := wire.MaskSecret(fmt.Sprintf(format, args...), w.in.Credential)
	w.report.Observations = append(w.report.Observations, Observation{Step: step, What: what, Exchange: ex})
}

// run walks the steps in the order of source 7.5, stopping at the first
// verdict.
func (w *walk) run(ctx context.Context) (Verdict, error) {
	names, v, err := w.reachable(ctx)
	if v != nil || err != nil {
		return deref(v), err
	}
	if v, err := w.listed(ctx, names); v != nil || err != nil {
		return deref(v), err
	}
	tr, v, err := w.call(ctx)
	if v != nil || err != nil {
		return deref(v), err
	}
	if v := w.pathPolicy(tr); v != nil {
		return *v, nil
	}
	return w.provider(ctx, tr)
}

func deref(v *Verdict) Verdict {
	if v == nil {
		return Verdict{}
	}
	return *v
}

// reply is a host's answer, or the transport failure that stood in for one.
type reply struct {
	*mcpclient.Reply
	// failed is why no HTTP response came; Status is then 0.
	failed error
}

// callMCP sends one request; a transport failure is an observation, not an
// error, unless ctx ended (the harness was stopped).
func (w *walk) callMCP(ctx context.Context, auth, method string, params any) (reply, error) {
	r, err := w.mcp.Call(ctx, auth, method, params)
	if err != nil && ctx.Err() != nil {
		return reply{}, fmt.Errorf("diagnose: %w", ctx.Err())
	}
	if r == nil {
		// On a transport failure the client returns no reply; the request
		// that failed is still worth showing.
		r = &mcpclient.Reply{Exchanges: []wire.Exchange{{
			Method: http.MethodPost, URL: w.base + "/mcp", TransportError: err.Error(),
		}}}
	}
	return reply{Reply: r, failed: err}, nil
}

// callTool sends tools/call for name with args, as the diagnosed caller.
func (w *walk) callTool(ctx context.Context, name string, args map[string]any) (reply, error) {
	return w.callMCP(ctx, w.auth, "tools/call", map[string]any{"name": name, "arguments": args})
}

// Step 1 (source 7.5): anonymous tools/list must answer 200, or the host is
// unreachable or not this kind of host. Anonymous, because source 5.3 lets
// every caller list tools: a failure here is never about the credential.
func (w *walk) reachable(ctx context.Context) ([]string, *Verdict, error) {
	r, err := w.callMCP(ctx, "", "tools/list", map[string]any{})
	if err != nil {
		return nil, nil, err
	}
	if r.Status == http.StatusOK {
		names, lerr := r.ToolNames()
		if lerr == nil {
			w.observe(1, last(r), "anonymous tools/list answered HTTP 200 with %d tools: the host is reachable", len(names))
			return names, nil, nil
		}
		w.observe(1, last(r), "anonymous tools/list answered HTTP 200 without a list of tools (%v)", lerr)
		if err := w.discovery(ctx); err != nil {
			return nil, nil, err
		}
		return nil, &Verdict{
			Step:      1,
			Uncovered: true,
			Summary: fmt.Sprintf("anonymous tools/list answered HTTP 200 without a list of tools (%v), which the source's "+
				"failure shapes do not cover; it may not be this kind of host", lerr),
			Remedy: w.checkURL(),
		}, nil
	}
	w.observe(1, last(r), "anonymous tools/list %s", answered(r))
	if challenged(r) {
		return w.authorizedList(ctx)
	}
	if err := w.discovery(ctx); err != nil {
		return nil, nil, err
	}
	return nil, &Verdict{
		Step:    1,
		Summary: fmt.Sprintf("the host at %s is unreachable or is not this kind of host: anonymous tools/list did not answer 200", w.base),
		Remedy:  w.checkURL(),
	}, nil
}

// challenged is whether a reply is a protected resource's refusal: 401 or
// 403 with a Bearer challenge (RFC 6750 section 3).
func challenged(r reply) bool {
	if r.failed != nil || (r.Status != http.StatusUnauthorized && r.Status != http.StatusForbidden) {
		return false
	}
	for _, v := range r.Header.Values("WWW-Authenticate") {
		for _, c := range wire.ParseChallenges(v) {
			if strings.EqualFold(c.Scheme, "Bearer") {
				return true
			}
		}
	}
	return false
}

// authorizedList is step 1 for a server whose tools/list needs a token,
// which no host of the source's kind is (source 5.3 lets every caller list
// tools): with the caller's credential the list is asked again and the
// diagnosis goes on; without one, the verdict says the server needs
// authorization and how to give conform a credential.
func (w *walk) authorizedList(ctx context.Context) ([]string, *Verdict, error) {
	if w.auth != "" {
		r, err := w.callMCP(ctx, w.auth, "tools/list", map[string]any{})
		if err != nil {
			return nil, nil, err
		}
		if names, lerr := r.ToolNames(); r.Status == http.StatusOK && lerr == nil {
			w.observe(1, last(r), "tools/list with the credential answered HTTP 200 with %d tools: the server lists tools only to callers with a token, which the source's hosts never ask (source 5.3)", len(names))
			return names, nil, nil
		}
		w.observe(1, last(r), "tools/list with the credential %s", answered(r))
		return nil, &Verdict{
			Step:    1,
			Summary: fmt.Sprintf("the server at %s needs authorization even to list tools, and refuses the credential given too", w.base),
			Remedy:  "give a credential the server's authorization server issued for it: " + w.rerun("--credential-env", "VAR") + ", or sign in once with `conform login --target " + w.base + "`",
		}, nil
	}
	return nil, &Verdict{
		Step: 1,
		Summary: fmt.Sprintf("the server at %s needs authorization even to list tools (anonymous tools/list answered a Bearer challenge), which the source's hosts never ask (source 5.3): "+
			"it is another kind of MCP server, or it wants a credential first", w.base),
		Remedy: "give conform a credential: " + w.rerun("--credential-env", "VAR") + " with VAR holding a token the server's authorization server issued, or sign in once with `conform login --target " + w.base +
			"`; to judge the server's authorization itself, run `conform run --spec mcp-authorization --target " + w.base + "/mcp`",
	}, nil
}

func (w *walk) checkURL() string {
	return fmt.Sprintf("check the URL (the MCP endpoint is %s/mcp) and that %s/.well-known/mcp.json is served", w.base, w.base)
}

// discovery fetches /.well-known/mcp.json, the document source section 4
// names for checking that a host is reachable.
func (w *walk) discovery(ctx context.Context) error {
	return w.fetch(ctx, 1, w.base+mcpclient.DiscoveryPath)
}

// fetch GETs an absolute URL and records its status.
func (w *walk) fetch(ctx context.Context, step int, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		w.observe(step, nil, "%q is not an http or https URL, so it was not fetched", raw)
		return nil
	}
	r, err := oauthclient.New(u.Scheme+"://"+u.Host, oauthclient.Endpoints{}, w.hc).Get(ctx, u.RequestURI())
	switch {
	case err != nil && ctx.Err() != nil:
		return fmt.Errorf("diagnose: %w", ctx.Err())
	case err != nil:
		w.observe(step, nil, "GET %s got no response: %v", raw, err)
	case r.JSON != nil:
		w.observe(step, &r.Exchange, "GET %s answered HTTP %d with a JSON object", raw, r.Status)
	default:
		a := r.Answer()
		a.ContentType = wire.MediaType(r.Header.Get("Content-Type"))
		w.observe(step, &r.Exchange, "GET %s answered %s", raw, wire.Describe(a))
	}
	return nil
}

// Step 2 (source 7.5): the tool must be in tools/list. An authenticated list
// may show more than the anonymous one, so with a credential both are asked.
func (w *walk) listed(ctx context.Context, names []string) (*Verdict, error) {
	complete := true
	if w.auth != "" {
		r, err := w.callMCP(ctx, w.auth, "tools/list", map[string]any{})
		if err != nil {
			return nil, err
		}
		more, lerr := r.ToolNames()
		switch {
		case r.Status == http.StatusOK && lerr == nil:
			w.observe(2, last(r), "tools/list with the credential answered HTTP 200 with %d tools", len(more))
			for _, n := range more {
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		case r.Status == http.StatusUnauthorized:
			// The credential itself is refused; the call at step 3 shows it
			// with the challenge, so the list is no reason to stop.
			w.observe(2, last(r), "tools/list with the credential answered HTTP 401: the host refuses the credential itself")
			complete = false
		default:
			w.observe(2, last(r), "tools/list with the credential %s", answered(r))
			return &Verdict{
				Step:      2,
				Uncovered: true,
				Summary:   fmt.Sprintf("tools/list with the credential %s, which the source's failure shapes do not cover", answered(r)),
				Remedy:    "check the host's logs for the authenticated tools/list; the anonymous one answered 200",
			}, nil
		}
	}
	if slices.Contains(names, w.in.Tool) {
		w.observe(2, nil, "%s is in tools/list", w.in.Tool)
		return nil, nil
	}
	if !complete {
		w.observe(2, nil, "%s is not in the anonymous tools/list and the authenticated one could not be had, so the call decides", w.in.Tool)
		return nil, nil
	}
	w.observe(2, nil, "%s is not in tools/list, which names %s", w.in.Tool, nameList(names))
	if slices.Contains(w.in.ContentTools, w.in.Tool) {
		return &Verdict{
			Step: 2,
			Summary: fmt.Sprintf("%s is a content tool and is not in tools/list: the host declared no content collections "+
				"(content tools appear only when collections are declared, source section 1)", w.in.Tool),
			Remedy: "the host must declare content collections for its content tools to exist; until then use the path tools",
		}, nil
	}
	remedy := "call a tool the host lists, or check the tool name"
	if w.auth == "" {
		remedy += fmt.Sprintf("; if the host shows more tools to signed-in callers, sign in with `conform login --target %s` and run `%s` again",
			w.base, w.rerun())
	}
	return &Verdict{
		Step:    2,
		Summary: fmt.Sprintf("the host does not offer %s: it is not in tools/list", w.in.Tool),
		Remedy:  remedy,
	}, nil
}

// Step 3 (source 7.5): the call itself. A 401 is gate 1 or 2 (sources 7.1
// and 7.2); a 200 with a tool result goes on to steps 4 and 5; anything else
// is a shape the source does not describe.
func (w *walk) call(ctx context.Context) (*mcpclient.ToolResult, *Verdict, error) {
	args := maps.Clone(w.in.Arguments)
	if args == nil {
		args = map[string]any{}
	}
	if w.in.Path != "" {
		args["path"] = w.in.Path
	}
	r, err := w.callTool(ctx, w.in.Tool, args)
	if err != nil {
		return nil, nil, err
	}
	if r.Status == http.StatusUnauthorized {
		v, err := w.unauthorized(ctx, r)
		return nil, v, err
	}
	tr, terr := r.ToolResult()
	if r.Status != http.StatusOK || terr != nil {
		w.observe(3, last(r), "tools/call %s %s", w.in.Tool, answered(r))
		return nil, &Verdict{
			Step:      3,
			Uncovered: true,
			Summary: fmt.Sprintf("the call %s, which the source's failure shapes do not cover "+
				"(a refusal by gate 1 or 2 is a 401, source 7.2; a failure in the tool is a 200 with isError, source 7.1)", answered(r)),
			Remedy: "no gate can be named from this answer; check the host's logs, or what stands in front of it, for this call",
		}, nil
	}
	w.observe(3, last(r), "tools/call %s answered HTTP 200 with isError %t: the call passed gates 1 and 2", w.in.Tool, tr.IsError)
	if !tr.IsError {
		// Source 7.1: a 200 is success only when isError is false.
		return nil, &Verdict{
			Summary: "the call succeeds: it passed all four gates (HTTP 200, isError false)",
			Result:  tr.Text,
		}, nil
	}
	return tr, nil, nil
}

// unauthorized concludes step 3: which cause of source 7.2's table applies,
// and the challenge to follow.
func (w *walk) unauthorized(ctx context.Context, r reply) (*Verdict, error) {
	meta := wire.ChallengeParam(r.Header.Values("WWW-Authenticate"), "Bearer", "resource_metadata")
	if meta == "" {
		w.observe(3, last(r), "tools/call %s answered HTTP 401 with no Bearer challenge naming resource_metadata (source 7.2 says it carries one)", w.in.Tool)
	} else {
		w.observe(3, last(r), "tools/call %s answered HTTP 401 with a Bearer challenge whose resource_metadata is %s", w.in.Tool, meta)
		if err := w.fetch(ctx, 3, meta); err != nil {
			return nil, err
		}
	}
	follow := ""
	if meta != "" {
		follow = fmt.Sprintf(" (the challenge's resource metadata is at %s)", meta)
	}
	login := fmt.Sprintf("conform login --target %s", w.base)
	if w.auth == "" {
		return &Verdict{
			Step: 3,
			Gate: GateOneOrTwo,
			Summary: fmt.Sprintf("gate 1 or 2 refused the call before it reached a tool: %s is in tools/list and answers 401 to an "+
				"anonymous caller, so it is a privileged tool, off the anonymous allowlist (source 5.3, 5.5)", w.in.Tool),
			Remedy: fmt.Sprintf("follow the WWW-Authenticate challenge%s: sign in to this host with `%s`, "+
				"then call again with the credential; `%s` diagnoses the call with it", follow, login, w.rerun()),
		}, nil
	}
	return &Verdict{
		Step: 3,
		Gate: GateOneOrTwo,
		Summary: "gate 1 or 2 refused the call before it reached a tool: the host rejected the credential " +
			"(malformed, unknown, or issued by a different host instance; source 5.2, 7.2)",
		Remedy: fmt.Sprintf("follow the WWW-Authenticate challenge%s: obtain a credential from this host with `%s`, "+
			"then `%s` diagnoses the call with it; a credential issued by another instance is never accepted here", follow, login, w.rerun()),
	}, nil
}

// last returns a copy of the reply's own exchange (handshakes come before it).
func last(r reply) *wire.Exchange {
	if len(r.Exchanges) == 0 {
		return nil
	}
	ex := r.Last()
	return &ex
}
