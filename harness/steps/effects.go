package steps

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/wire"
)

// Steps that judge a refusal by what it left undone rather than by its
// shape: where the source fixes only that a call must not get through
// (source 5.3, "Anonymous callers ... may use only these methods"), the
// suite looks at the file the call would have written, after showing in the
// same scenario that a write it is allowed to make is seen.

// registerEffects binds the steps that write a marker, look for it, and send
// a credential where the source says it is not presented.
func (st *State) registerEffects(sc stepContext) {
	sc.Step(`^the caller writes a fresh marker to (\S+)$`, st.writeMarker)
}

// writeMarker writes a value no earlier run wrote with the current caller:
// the control that a write the caller may make succeeds. When it does not,
// what the scenario would judge next cannot be seen, and the scenario is
// not run; the scenario that is about such writes judges the host on it.
func (st *State) writeMarker(ctx context.Context, path string) error {
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
func (st *State) markerShown() error {
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
func (st *State) markerKept(other string) error {
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
func (st *State) noResultFor(id string) error {
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
func (st *State) callWithQueryCredential(ctx context.Context, tool, path string) error {
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

// queryTokenClient is an MCP client of the endpoint that puts the target's
// credential in the URI query as access_token, RFC 6750's query form, and
// in no Authorization header.
func (st *State) queryTokenClient() (*mcpclient.Client, error) {
	u, err := url.Parse(st.endpoint())
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("access_token", st.Target.Credential)
	u.RawQuery = q.Encode()
	return mcpclient.New(u.String(), st.Target.HTTP).Pin(st.MCP.Revision()), nil
}
