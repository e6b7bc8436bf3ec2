package oauthclient

import (
	"context"
	"net/http"
	"net/url"
)

// Revoke asks the revocation endpoint of an authorization server (its
// metadata's revocation_endpoint, RFC 8414 section 2) to revoke token (RFC
// 7009 section 2.1): a form with token and, when not "", the
// token_type_hint, as the client clientID, authenticated with secret when
// it has one; a public client names itself with client_id, as at the token
// endpoint. The answer comes back as received, for the caller to judge.
func Revoke(ctx context.Context, hc *http.Client, endpoint, clientID string, secret Secret, token, hint string) (*Reply, error) {
	form := url.Values{"token": {token}, "client_id": {clientID}}
	if hint != "" {
		form.Set("token_type_hint", hint)
	}
	oc, form := secret.authenticate(New("", Endpoints{}, hc), form)
	if oc.basic != nil {
		// One authentication method per request (RFC 6749 section 2.3).
		form.Del("client_id")
	}
	return oc.do(ctx, http.MethodPost, endpoint, formType, []byte(form.Encode()))
}
