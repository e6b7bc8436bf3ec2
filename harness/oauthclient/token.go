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

// SecretFor is how to send secret to the authorization server md describes:
// HTTP Basic, the default of token_endpoint_auth_methods_supported (RFC
// 8414 2), unless the metadata lists only client_secret_post.
func SecretFor(md *ServerMetadata, secret string) Secret {
	methods := md.Strings("token_endpoint_auth_methods_supported")
	return Secret{Value: secret, Post: len(methods) > 0 && !slices.Contains(methods, "client_secret_basic") && slices.Contains(methods, "client_secret_post")}
}

// Token posts a token request to endpoint, authenticated with the secret
// when there is one; form carries the client_id.
func (s Secret) Token(ctx context.Context, hc *http.Client, endpoint string, form url.Values) (*Reply, error) {
	oc, form := s.authenticate(New("", Endpoints{Token: endpoint}, hc), form)
	return oc.Token(ctx, form)
}

// authenticate returns oc and form as they authenticate the client whose
// client_id form carries: unchanged for a public client, in HTTP Basic, or
// with client_secret added to a copy of form (OAuth 2.1 section 2.4.1).
func (s Secret) authenticate(oc *Client, form url.Values) (*Client, url.Values) {
	switch {
	case s.Value == "":
		return oc, form
	case s.Post:
		form = cloneForm(form)
		form.Set("client_secret", s.Value)
		return oc, form
	default:
		return oc.WithBasicAuth(form.Get("client_id"), s.Value), form
	}
}

func cloneForm(f url.Values) url.Values {
	out := url.Values{}
	for k, v := range f {
		out[k] = slices.Clone(v)
	}
	return out
}
