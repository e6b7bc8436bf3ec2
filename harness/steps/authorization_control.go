package steps

import (
	"context"

	"github.com/conform-mcp/conform/harness/mcpclient"
)

// control sends the request that needs authorization with auth (an
// Authorization header value, "" for none), as the control a later refusal
// is weighed against: a token shown served before it is refused, or a
// request shown refused before a token is said to be what let it through.
// notShown says why the answer does not show what the control needs, and
// leaves the scenario not run, since a verdict against it would say
// nothing; "" lets it go on. The control's answer is no reply the scenario
// judges.
func (st *authzState) control(ctx context.Context, auth string, notShown func(*mcpclient.Reply) string) error {
	r := st.protected()
	reply, err := st.MCP.Call(ctx, auth, r.Method, st.protectedParams(r))
	if err := st.took(reply, err); err != nil {
		return err
	}
	if why := notShown(reply); why != "" {
		return st.skip(why)
	}
	st.reply, st.last = nil, nil
	return nil
}
