package steps

import (
	"context"
	"fmt"

	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/target"
)

// sendInSessionWithoutToken sends the request that needs authorization again
// in the session the caller's token was served in, carrying its
// Mcp-Session-Id and no Authorization header: "MCP servers MUST NOT treat
// possession of a state handle as authentication" (Security Best Practices,
// section 2.4.2).
func (st *authzState) sendInSessionWithoutToken(ctx context.Context) error {
	return st.sendInSession(ctx, "")
}

// sendInSessionAsOtherUser sends the request that needs authorization again
// in the session the caller's token was served in, with another user's
// token: servers "SHOULD bind handles server-side to the authenticated user
// ... and reject a handle presented by any other principal" (Security Best
// Practices, section 2.4.2).
func (st *authzState) sendInSessionAsOtherUser(ctx context.Context) error {
	other := st.Target.Tokens.OtherUser
	if other == "" {
		return st.skip(st.Target.Lacks(target.NeedsOtherUserToken))
	}
	return st.sendInSession(ctx, "Bearer "+other)
}

// sendInSession sends the request that needs authorization with the
// Authorization value auth ("" for none) in the session the current caller's
// token was served in. A server that opened no session handed out no
// handle, and the scenario is not run.
func (st *authzState) sendInSession(ctx context.Context, auth string) error {
	owner := st.auth
	if owner == "" {
		return fmt.Errorf("no caller with a token yet: the scenario must send the request with a token first")
	}
	r := st.protected()
	reply, ok, err := st.MCP.CallInSession(ctx, auth, owner, r.Method, st.protectedParams(r))
	if err == nil && !ok {
		return st.skip(outcome.NotApplicable + "the server opened no session with an Mcp-Session-Id for the token's requests (it keeps none, as MCP 2026-07-28 lets it), so there is no session handle to present")
	}
	return st.took(reply, err)
}
