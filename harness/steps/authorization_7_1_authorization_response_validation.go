package steps

import (
	"context"
	"fmt"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/wire"
)

func (st *authzState) asAdvertisesIss(ctx context.Context) error {
	if err := st.usableAS(ctx); err != nil {
		return err
	}
	if !st.authz.as.md.Bool("authorization_response_iss_parameter_supported") {
		return st.skip("the metadata does not advertise authorization_response_iss_parameter_supported, so iss is not promised")
	}
	return nil
}

func (st *authzState) errorRedirect() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	if !a.redirected || a.params.Get("error") == "" {
		return st.skip(fmt.Sprintf("the authorization server answered %s, not an error redirect, so there is no authorization error response to read (PKCE-2 judges the refusal)", a.describe()))
	}
	return nil
}

// unsupportedResponseType is a response_type no authorization server
// supports, which it refuses with unsupported_response_type on the
// redirect (OAuth 2.1 4.1.2.1) once client_id and redirect_uri are valid.
const unsupportedResponseType = "conform_unsupported"

// sendRefusable sends the request whose error response the scenarios about
// error responses read (iss, state): without code_challenge, which a
// server refuses at once when it holds public clients to PKCE there; a
// server that checks PKCE only at the token endpoint issues a code
// instead (PKCE-2 judges that), and then a response_type it cannot
// support stands in.
func (st *authzState) sendRefusable(ctx context.Context) error {
	if err := st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.Challenge, r.Method = "", "" }); err != nil {
		return err
	}
	if a := st.authz.as.resp; a.redirected && a.params.Get("error") != "" {
		return nil
	}
	return st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.ResponseType = unsupportedResponseType })
}

func (st *authzState) responseCarriesIss() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	if a.params.Get("iss") == "" {
		return st.depart("authorization response (RFC 9207 2)", "an iss parameter", a.describe(), a.ex)
	}
	return nil
}

func (st *authzState) responseCarriesCode() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	if a.params.Get("code") == "" {
		return st.depart("authorization response (OAuth 2.1 4.1.2)", "a code for the approved request", a.describe(), a.ex)
	}
	return nil
}

func (st *authzState) issAdvertisedWhenSent() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	if a.params.Get("iss") == "" {
		return st.skip("the authorization response carries no iss, so nothing need be advertised (ISS-3 asks for iss)")
	}
	if md := st.authz.as.md; !md.Bool("authorization_response_iss_parameter_supported") {
		return st.depart("authorization_response_iss_parameter_supported (RFC 9207 2.3)", "true, since responses carry iss",
			wire.JSONText(md.Reply.JSON["authorization_response_iss_parameter_supported"]), md.Reply.Exchange)
	}
	return nil
}

func (st *authzState) issIsIssuer() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	want := st.authz.as.md.String("issuer")
	if got := a.params.Get("iss"); got != want {
		return st.depart("iss of the authorization response (RFC 9207 2)", fmt.Sprintf("%q, the metadata's issuer", want), fmt.Sprintf("%q in %s", got, a.location), a.ex)
	}
	return nil
}
