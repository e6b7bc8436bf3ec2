package steps

import (
	"context"
	"fmt"
)

// sendInSessionWithoutToken sends the request that needs authorization again
// in the session the caller's token was served in, carrying its
// Mcp-Session-Id and no Authorization header: "MCP servers MUST NOT treat
// possession of a state handle as authentication" (Security Best Practices,
// section 2.4.2). A server that opened no session handed out no handle, and
// the scenario is not run.
func (st *authzState) sendInSessionWithoutToken(ctx context.Context) error {
	owner := st.auth
	if owner == "" {
		return fmt.Errorf("no caller with a token yet: the scenario must send the request with a token first")
	}
	r := st.protected()
	reply, ok, err := st.MCP.CallInSession(ctx, "", owner, r.Method, st.protectedParams(r))
	if err == nil && !ok {
		return st.skip("the server opened no session with an Mcp-Session-Id for the token's requests, so there is no session handle to present without the token")
	}
	return st.took(reply, err)
}
