package steps

import (
	"context"
	"fmt"

	"github.com/conform-mcp/conform/harness/mcpclient"
)

// A replayed code and the tokens of its first redemption (MCP security.4;
// OAuth 2.1 4.1.3 and 7.5.3): the scenarios present the first redemption's
// access token to the MCP server before and after the replay.

// withRedeemedToken presents the access token the client's last redemption
// obtained.
func (st *authzState) withRedeemedToken() error {
	r, err := st.needToken()
	if err != nil {
		return err
	}
	tok, _ := r.String("access_token")
	if tok == "" {
		return fmt.Errorf("the last token response carries no access_token")
	}
	st.auth = "Bearer " + tok
	return nil
}

// callerServed is the control of a later refusal of the caller's token: the
// request that needs authorization, sent with it, is served. When it is
// not, a refusal after the replay would say nothing, and the scenario is not
// run.
func (st *authzState) callerServed(ctx context.Context) error {
	return st.control(ctx, st.auth, func(reply *mcpclient.Reply) string {
		if reply.Status/100 == 2 {
			return ""
		}
		return fmt.Sprintf("the access token the code was redeemed for was not served the request that needs authorization (%s), "+
			"so a refusal after the replay would say nothing; set mcp_authorization.protected_request to a request that token may make", describe(reply))
	})
}

// neverIssuedToken is a token no server issued.
const neverIssuedToken = "conform-unknown-token-4c1d8e2b9a"

// unknownTokenRefused is the control of a revocation seen at the MCP
// server: a token the server never issued is refused there. When it is
// served (TOK-3 judges that), a revoked token served says nothing of the
// revocation, and the scenario is not run.
func (st *authzState) unknownTokenRefused(ctx context.Context) error {
	return st.control(ctx, "Bearer "+neverIssuedToken, func(reply *mcpclient.Reply) string {
		if reply.Status/100 != 2 {
			return ""
		}
		return fmt.Sprintf("the server serves a token it never issued (%s), which TOK-3 judges, so a revoked token served would say nothing of the revocation", describe(reply))
	})
}
