package oauthclient

import (
	"context"
	"net/http"
	"net/url"
	"slices"
)

// Token sends a token request with the given form parameters (RFC 6749
// section 4.1.3, RFC 8628 section 3.4); the caller names grant_type and
// client_id, so that scenarios can also send wrong ones.
func (c *Client) Token(ctx context.Context, form url.Values) (*Reply, error) {
	return c.do(ctx, http.MethodPost, c.endpoints.Token, formType, []byte(form.Encode()))
}

// Secret is a confidential client's secret and how the token endpoint
// takes it (OAuth 2.1 section 2.4.1); the zero Secret is a public client's.
type Secret struct {
	Value string
	// Post sends it in the form (client_secret_post) instead of HTTP Basic.
	Post bool
}

// The token_endpoint_auth_method values of RFC 7591 section 2 the harness
// speaks.
const (
	AuthBasic = "client_secret_basic"
	AuthPost  = "client_secret_post"
	AuthNone  = "none"
)

// SecretFor is how to send secret to the authorization server md describes,
// for a client registered with the token_endpoint_auth_method method ("" when
// unknown): the method registered, which the server holds the client to;
// else HTTP Basic, the default of token_endpoint_auth_methods_supported (RFC
// 8414 2), unless the metadata lists only client_secret_post. A client
// registered with none, or without a secret, is a public client.
func SecretFor(md *ServerMetadata, method, secret string) Secret {
	switch {
	case secret == "" || method == AuthNone:
		return Secret{}
	case method == AuthPost:
		return Secret{Value: secret, Post: true}
	case method == AuthBasic:
		return Secret{Value: secret}
	}
	methods := md.Strings("token_endpoint_auth_methods_supported")
	return Secret{Value: secret, Post: len(methods) > 0 && !slices.Contains(methods, AuthBasic) && slices.Contains(methods, AuthPost)}
}

// Method is the token_endpoint_auth_method the secret is sent by.
func (s Secret) Method() string {
	switch {
	case s.Value == "":
		return AuthNone
	case s.Post:
		return AuthPost
	}
	return AuthBasic
}

// Token posts a token request to endpoint, authenticated with the secret
// when there is one; form carries the client_id.
func (s Secret) Token(ctx context.Context, hc *http.Client, endpoint string, form url.Values) (*Reply, error) {
	oc, form := s.authenticate(New("", Endpoints{Token: endpoint}, hc), form)
	return oc.Token(ctx, form)
}

// authenticate returns oc and form as they authenticate the client whose
// client_id form carries, by exactly one method (RFC 6749 section 2.3: "The
// client MUST NOT use more than one authentication method in each
// request"): a public client names itself with client_id alone; a
// confidential one sends its secret with client_id in a copy of form
// (client_secret_post), or its id and secret in HTTP Basic and a copy of
// form without client_id, which OAuth 2.1 4.1.3 requires only of a client
// that does not authenticate (client_secret_basic).
func (s Secret) authenticate(oc *Client, form url.Values) (*Client, url.Values) {
	switch {
	case s.Value == "":
		return oc, form
	case s.Post:
		form = cloneForm(form)
		form.Set("client_secret", s.Value)
		return oc, form
	default:
		id := form.Get("client_id")
		form = cloneForm(form)
		form.Del("client_id")
		return oc.WithBasicAuth(id, s.Value), form
	}
}

func cloneForm(f url.Values) url.Values {
	out := url.Values{}
	for k, v := range f {
		out[k] = slices.Clone(v)
	}
	return out
}
