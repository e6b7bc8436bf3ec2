package steps

import (
	"context"
	"fmt"

	"github.com/conform-mcp/conform/harness/oauthclient"
)

// plainRedirect is a redirect URI that is neither localhost nor HTTPS:
// "All redirect URIs MUST be either localhost or use HTTPS" (security.3).
const plainRedirect = "http://client.conform.invalid/cb"

// plainRedirectClient is TLS-3's client: one registered with plainRedirect
// beside the profile's redirect URI when registration takes it, so that the
// rule is judged where it bites (issue 21 item h). A registration that
// refuses it keeps the server from ever having such a redirect URI, which
// the rule asks (REG-4 judges the refusal as such); the run's own client
// then stands in, and without a registration_endpoint its request naming
// plainRedirect must get no code there either.
func (st *authzState) plainRedirectClient(ctx context.Context) error {
	if err := st.publicClient(ctx); err != nil {
		return err
	}
	id, refused, err := st.registerOwn(ctx, []string{st.redirectURI(), plainRedirect})
	switch {
	case err != nil:
		return err
	case refused != "" && st.authz.as.md.String("registration_endpoint") != "":
		st.authz.as.plainRefused = refused
	case refused == "":
		st.authz.as.clientID = id
	}
	return nil
}

// sendPlainRedirect sends the client's valid authorization request naming
// plainRedirect, unless registration refused it.
func (st *authzState) sendPlainRedirect(ctx context.Context) error {
	if st.authz.as.plainRefused != "" {
		return nil
	}
	return st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.RedirectURI = plainRedirect })
}

// noCodeToPlain: the authorization endpoint redirects no code to a redirect
// URI that is plain http on a host that is not loopback (security.3). An
// error, redirected or not, gives nothing away; a registration that refused
// the URI left none to redirect to.
func (st *authzState) noCodeToPlain() error {
	if st.authz.as.plainRefused != "" {
		return nil
	}
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	if err := st.undecided(a); err != nil {
		return err
	}
	if a.redirected && a.params.Get("code") != "" {
		return st.depart("authorization response (security.3: \"All redirect URIs MUST be either localhost or use HTTPS\")",
			fmt.Sprintf("no code redirected to %s", plainRedirect), "redirected a code: "+a.location, a.ex)
	}
	return nil
}
