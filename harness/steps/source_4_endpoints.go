package steps

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/wire"
	"github.com/cucumber/godog"
)

// registerEndpoints binds the steps that send to the host's endpoints
// (source 1 and 4): MCP requests to {base}/mcp, documents a client fetches,
// and the same request to the peer.
func (st *sourceState) registerEndpoints(sc stepContext) {
	sc.Step(`^the caller sends "([^"]*)"( to the peer)?$`, st.send)
	sc.Step(`^the caller (calls|attempts the operation) (\S+) on (\S+)( with the target's credential in the URI query string, not in the Authorization header)?$`, st.call)
	sc.Step(`^the caller calls a tool name that tools/list does not show$`, st.callUnlisted)
	sc.Step(`^the caller posts to /mcp with Content-Type "([^"]*)":$`, st.postRaw)
	sc.Step(`^a client fetches (the resource_metadata named by the challenge|\S+)$`, func(ctx context.Context, what string) error {
		if what == "the resource_metadata named by the challenge" {
			return st.fetchChallengeMetadata(ctx)
		}
		return st.fetchDocument(ctx, what)
	})
}

// send sends a method with its default params, to the target or its peer.
func (st *sourceState) send(ctx context.Context, method, toPeer string) error {
	if toPeer != "" {
		return st.sendToPeer(ctx, method)
	}
	return st.sendMethod(ctx, method)
}

// call calls a tool, or the tool of an operation the source names, on a
// path: with the caller's credential in the Authorization header, or with
// the target's credential in the URI query instead.
func (st *sourceState) call(ctx context.Context, verb, tool, path, inQuery string) error {
	if verb == "attempts the operation" {
		t, err := st.toolFor(tool)
		if err != nil {
			return err
		}
		tool = t
	}
	if inQuery != "" {
		return st.callWithQueryCredential(ctx, tool, path)
	}
	return st.callOn(ctx, tool, path)
}

func (st *sourceState) sendMethod(ctx context.Context, method string) error {
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

// toolArguments builds the arguments of a path tool: {"path": p}, and a
// content for the write tool (PRODUCT.md section 4: the profile's argument shape).
func (st *sourceState) toolArguments(tool, path string) map[string]any {
	args := map[string]any{"path": path}
	if tool == st.Target.Profile.Tools.Write {
		args["content"] = "written by the conformance suite\n"
	}
	return args
}

func (st *sourceState) callOn(ctx context.Context, tool, path string) error {
	tool, err := st.expand(tool)
	if err != nil {
		return err
	}
	if path, err = st.expand(path); err != nil {
		return err
	}
	return st.callTool(ctx, tool, st.toolArguments(tool, path))
}

func (st *sourceState) callTool(ctx context.Context, tool string, args any) error {
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
func (st *sourceState) toolFor(operation string) (string, error) {
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

// unlistedTool is a name no host is expected to offer; the step checks that.
const unlistedTool = "conform_unlisted_tool_0"

func (st *sourceState) callUnlisted(ctx context.Context) error {
	names, err := st.anonymousToolNames(ctx)
	if err != nil {
		return err
	}
	name := unlistedName(names)
	st.vars["unlisted_tool"] = name
	return st.callTool(ctx, name, map[string]any{"path": st.Target.Profile.Paths.Open})
}

func (st *sourceState) postRaw(ctx context.Context, contentType string, doc *godog.DocString) error {
	body, err := st.expand(doc.Content)
	if err != nil {
		return err
	}
	r, err := st.MCP.Send(ctx, st.auth, contentType, []byte(body))
	st.called = ""
	return st.took(r, err)
}

// fetchURL GETs an absolute URL through a client rooted at its origin, so
// the exchange is recorded like any other.
func (st *sourceState) fetchURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return st.depart("document URL", "an absolute URL", fmt.Sprintf("%q", raw))
	}
	origin := u.Scheme + "://" + u.Host
	r, err := oauthclient.New(origin, oauthclient.Endpoints{}, st.Target.HTTP).Get(ctx, u.RequestURI())
	return st.oauthReply(r, err, "GET "+raw)
}

func (st *sourceState) fetchDocument(ctx context.Context, raw string) error {
	raw, err := st.expand(raw)
	if err != nil {
		return err
	}
	return st.fetchURL(ctx, raw)
}

// fetchChallengeMetadata follows the 401's challenge to its resource_metadata
// (source 7.2: "Follow the challenge").
func (st *sourceState) fetchChallengeMetadata(ctx context.Context) error {
	if err := st.needReply(); err != nil {
		return err
	}
	values := st.reply.Header.Values("WWW-Authenticate")
	if meta := wire.ChallengeParam(values, "Bearer", "resource_metadata"); meta != "" {
		return st.fetchURL(ctx, meta)
	}
	return st.depart("WWW-Authenticate header", "a Bearer challenge with resource_metadata", fmt.Sprintf("%q", strings.Join(values, ", ")), st.reply.Last())
}

// sendToPeer sends a method to the peer instance, to show that a credential
// the target refuses is one its issuer accepts.
func (st *sourceState) sendToPeer(ctx context.Context, method string) error {
	p := st.Target.Profile.Peer
	if p == nil || p.Target == "" {
		return st.skip("needs the peer's address: set peer.target")
	}
	peer := mcpclient.New(p.Target+"/mcp", st.Target.HTTP).Pin(st.Target.Profile.MCPRevision)
	r, err := peer.Call(ctx, st.auth, method, mcpclient.DefaultParams(method))
	return st.took(r, err)
}
