package steps

import (
	"context"
	"fmt"

	"github.com/conform-mcp/conform/harness/oauthclient"
)

// The audience of the tokens the authorization server issues (MCP
// security.1, Token Audience Binding and Validation; OAuth 2.1 7.1.3.6:
// "Authorization servers SHOULD issue bearer tokens that contain an audience
// restriction, scoping their use to the intended relying party or set of
// relying parties").

// tokenAudienceNamed reads the audience of the access token the last token
// response carries: a readable JWT's aud, else, when the metadata advertises
// introspection_endpoint, introspection's aud (RFC 7662 2.2), asked as the
// profile's introspecting client. A token that says nothing either way
// leaves the scenario not run; an introspection answer without aud is no
// evidence that the token has no audience restriction, and leaves it not run
// too.
func (st *authzState) tokenAudienceNamed(ctx context.Context) error {
	r, err := st.needToken()
	if err != nil {
		return err
	}
	tok, _ := r.String("access_token")
	if claims, ok := oauthclient.Claims(tok); ok {
		if len(oauthclient.Audience(claims)) == 0 {
			return st.depart("audience restriction of an access token (OAuth 2.1 7.1.3.6)", "a JWT access token with aud",
				fmt.Sprintf("a JWT whose claims name no aud: %v", claimNames(claims)), r.Exchange)
		}
		return nil
	}
	in := st.introspect(ctx, tok)
	if in.why != "" {
		return st.skip("the access token is no readable JWT, so its audience is read by introspection, which cannot be asked: " + in.why)
	}
	if !in.active {
		return st.skip(fmt.Sprintf("the introspection endpoint did not say the token is active (%s), so its audience cannot be read", describeOAuth(in.reply)))
	}
	ir := in.reply
	if _, named := ir.JSON["aud"]; !named {
		return st.skip("the introspection answer names no aud, which RFC 7662 2.2 leaves optional, so whether the token is audience-restricted cannot be seen")
	}
	return nil
}

// claimNames are a JWT's claim names, for a departure's evidence.
func claimNames(claims map[string]any) []string {
	names := make([]string, 0, len(claims))
	for n := range claims {
		names = append(names, n)
	}
	return names
}
