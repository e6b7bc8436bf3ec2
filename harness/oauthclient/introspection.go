package oauthclient

import (
	"context"
	"net/http"
	"net/url"
)

// Introspect asks the introspection endpoint of an authorization server
// (its metadata's introspection_endpoint, RFC 8414 section 2) about token
// (RFC 7662 section 2.1): a form with token and, when not "", the
// token_type_hint, authenticated as the client clientID with secret, since
// the endpoint "MUST also require some form of authorization"; with no
// clientID, as a caller with no credentials at all. The answer comes back
// as received, for the caller to judge; Active reads it.
func Introspect(ctx context.Context, hc *http.Client, endpoint, clientID string, secret Secret, token, hint string) (*Reply, error) {
	form := url.Values{"token": {token}}
	if clientID != "" {
		form.Set("client_id", clientID)
	}
	if hint != "" {
		form.Set("token_type_hint", hint)
	}
	oc, form := secret.authenticate(New("", Endpoints{}, hc), form)
	return oc.do(ctx, http.MethodPost, endpoint, formType, []byte(form.Encode()))
}

// Active reads an introspection response (RFC 7662 section 2.2): whether
// the token is active, and whether the answer says so at all: "active" is
// the one member the response MUST have, a JSON boolean.
func Active(r *Reply) (active, stated bool) {
	active, stated = r.JSON["active"].(bool)
	return active, stated && r.Status == http.StatusOK
}
