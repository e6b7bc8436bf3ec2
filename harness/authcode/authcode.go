// Package authcode is the harness's side of the OAuth 2.1 authorization code
// flow as the MCP specification's authorization rules shape it: authorization
// server metadata found in the order the specification gives, PKCE with S256
// (RFC 7636), the resource indicator (RFC 8707), and the redirect read back
// from whoever stands in for the person (the profile's approval command).
// Like oauthclient it judges nothing: scenarios send each request themselves
// and decide what the answers mean.
package authcode

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/target"
)

// WellKnown returns the authorization server metadata URIs of an issuer in
// the order MCP's Authorization Server Discovery tells a client to try them:
// with a path, RFC 8414 path insertion, then OpenID Connect Discovery path
// insertion, then OpenID Connect path appending; without one, RFC 8414, then
// OpenID Connect Discovery.
func WellKnown(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("issuer %q is not an absolute URL", issuer)
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	if path == "" {
		return []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}, nil
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + "/.well-known/openid-configuration" + path,
		origin + path + "/.well-known/openid-configuration",
	}, nil
}

// Metadata is an authorization server's metadata document as found.
type Metadata struct {
	// Issuer is the identifier the document's URI was built from.
	Issuer string
	// URL is where the document was found.
	URL string
	// Reply is the answer that carried it; Reply.JSON is the document.
	Reply *oauthclient.Reply
}

// String returns a string member of the document, or "".
func (m *Metadata) String(key string) string {
	s, _ := m.Reply.JSON[key].(string)
	return s
}

// Strings returns a member that is an array of strings.
func (m *Metadata) Strings(key string) []string {
	list, _ := m.Reply.JSON[key].([]any)
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Bool returns a boolean member, false when absent.
func (m *Metadata) Bool(key string) bool {
	b, _ := m.Reply.JSON[key].(bool)
	return b
}

// Discover tries the issuer's well-known URIs in order and returns the first
// that answers 200 with a JSON object, or nil with every answer in tried.
func Discover(ctx context.Context, hc *http.Client, issuer string) (*Metadata, []*oauthclient.Reply, error) {
	uris, err := WellKnown(issuer)
	if err != nil {
		return nil, nil, err
	}
	oc := oauthclient.New("", oauthclient.Endpoints{}, hc)
	var tried []*oauthclient.Reply
	for _, u := range uris {
		r, err := oc.Get(ctx, u)
		if err != nil {
			return nil, tried, fmt.Errorf("GET %s: %w", u, err)
		}
		if r.Status == http.StatusOK && r.JSON != nil {
			return &Metadata{Issuer: issuer, URL: u, Reply: r}, tried, nil
		}
		tried = append(tried, r)
	}
	return nil, tried, nil
}

// PKCE returns a fresh code verifier and its S256 code challenge (RFC 7636
// sections 4.1 and 4.2).
func PKCE() (verifier, challenge string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	verifier = base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// Request is an authorization request (OAuth 2.1 section 4.1.1). Empty
// fields are not sent, so scenarios can leave out what they test.
type Request struct {
	Endpoint, ClientID, RedirectURI, Challenge, Method, State, Resource, Scope string
	// ResponseType is "code" when empty, the one OAuth 2.1 defines.
	ResponseType string
}

// URL is the authorization URL a user agent is sent to.
func (r Request) URL() (string, error) {
	u, err := url.Parse(r.Endpoint)
	if err != nil {
		return "", fmt.Errorf("authorization_endpoint %q: %w", r.Endpoint, err)
	}
	q := u.Query()
	q.Set("response_type", "code")
	if r.ResponseType != "" {
		q.Set("response_type", r.ResponseType)
	}
	for k, v := range map[string]string{"client_id": r.ClientID, "redirect_uri": r.RedirectURI,
		"code_challenge": r.Challenge, "code_challenge_method": r.Method, "state": r.State,
		"resource": r.Resource, "scope": r.Scope} {
		if v != "" {
			q.Set(k, v)
		}
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// Response is an authorization response read from the redirect.
type Response struct {
	// Location is the URL redirected to.
	Location string
	// ToRedirectURI is true when Location is the redirect URI sent (the same
	// scheme, authority and path).
	ToRedirectURI bool
	// Params are the query parameters: code, state, iss, or error.
	Params url.Values
}

// ReadRedirect parses where an authorization server sent the user agent.
func ReadRedirect(location, redirectURI string) (Response, error) {
	loc, err := url.Parse(location)
	if err != nil {
		return Response{}, fmt.Errorf("redirect %q: %w", location, err)
	}
	want, err := url.Parse(redirectURI)
	if err != nil {
		return Response{}, fmt.Errorf("redirect_uri %q: %w", redirectURI, err)
	}
	same := strings.EqualFold(loc.Scheme, want.Scheme) && strings.EqualFold(loc.Host, want.Host) && loc.EscapedPath() == want.EscapedPath()
	return Response{Location: location, ToRedirectURI: same, Params: loc.Query()}, nil
}

// Authorize sends the request through the approver and reads the redirect.
func Authorize(ctx context.Context, approve target.AuthorizationApprover, r Request) (Response, error) {
	u, err := r.URL()
	if err != nil {
		return Response{}, err
	}
	loc, err := approve(ctx, u)
	if err != nil {
		return Response{}, err
	}
	return ReadRedirect(loc, r.RedirectURI)
}

// CodeForm is the token request that redeems a code (OAuth 2.1 section
// 4.1.3); a scenario deletes or changes what it tests.
func CodeForm(code, clientID, redirectURI, verifier, resource string) url.Values {
	f := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {clientID},
		"redirect_uri": {redirectURI}, "code_verifier": {verifier}}
	if resource != "" {
		f.Set("resource", resource)
	}
	return f
}

// Register registers a public client for the authorization code grant
// (RFC 7591 section 2) and returns the answer. It names its
// application_type, as MCP's Client Registration says clients MUST, since
// an OpenID provider takes a registration without one as a web client's and
// may then hold a loopback redirect URI to its registered port.
func Register(ctx context.Context, hc *http.Client, endpoint, redirectURI string) (*oauthclient.Reply, error) {
	oc := oauthclient.New("", oauthclient.Endpoints{Register: endpoint}, hc)
	return oc.Register(ctx, map[string]any{
		"client_name":                "conform",
		"redirect_uris":              []string{redirectURI},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
		"application_type":           ApplicationType(redirectURI),
	})
}

// ApplicationType is the application_type MCP's Client Registration
// ("Application Type and Redirect URI Constraints") gives a client with
// this redirect URI: native for one on localhost or a loopback IP, or with
// a private-use scheme (RFC 8252 7.1); web for one on any other host.
func ApplicationType(redirectURI string) string {
	u, err := url.Parse(redirectURI)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "native"
	}
	if LoopbackHost(u.Hostname()) {
		return "native"
	}
	return "web"
}

// LoopbackHost says whether a URL's host name is the loopback: "localhost"
// (in any case) or a loopback IP literal.
func LoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Token posts a token request to the endpoint as a public client.
func Token(ctx context.Context, hc *http.Client, endpoint string, form url.Values) (*oauthclient.Reply, error) {
	return Secret{}.Token(ctx, hc, endpoint, form)
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
func SecretFor(md *Metadata, secret string) Secret {
	methods := md.Strings("token_endpoint_auth_methods_supported")
	return Secret{Value: secret, Post: len(methods) > 0 && !slices.Contains(methods, "client_secret_basic") && slices.Contains(methods, "client_secret_post")}
}

// Token posts a token request, authenticated with the secret when there is
// one; form carries the client_id.
func (s Secret) Token(ctx context.Context, hc *http.Client, endpoint string, form url.Values) (*oauthclient.Reply, error) {
	oc := oauthclient.New("", oauthclient.Endpoints{Token: endpoint}, hc)
	switch {
	case s.Value == "":
	case s.Post:
		form = cloneForm(form)
		form.Set("client_secret", s.Value)
	default:
		oc = oc.WithBasicAuth(form.Get("client_id"), s.Value)
	}
	return oc.Token(ctx, form)
}

func cloneForm(f url.Values) url.Values {
	out := url.Values{}
	for k, v := range f {
		out[k] = slices.Clone(v)
	}
	return out
}

// Client is what Obtain needs to run the flow on its own.
type Client struct {
	HTTP    *http.Client
	Approve target.AuthorizationApprover
	// RedirectURI is registered and sent; nothing need listen on it.
	RedirectURI string
	// ClientID is a client registered beforehand; when "", Obtain registers
	// one at the metadata's registration_endpoint.
	ClientID string
	// Scope is sent in the authorization request when not "".
	Scope string
	// Secret authenticates ClientID, a confidential client, at the token
	// endpoint; "" for a public client.
	Secret string
}

// Obtain runs the whole flow against the authorization server of issuer for
// resource: discovery, registration, authorization through the approver, and
// the code's redemption. It returns the token response. The harness uses it
// for the tokens the mcp-authorization pack presents.
//
// A client it registers is kept in c.ClientID, so that the next flow uses it.
func (c *Client) Obtain(ctx context.Context, issuer, resource string) (map[string]any, error) {
	md, _, err := Discover(ctx, c.HTTP, issuer)
	if err != nil {
		return nil, err
	}
	if md == nil {
		return nil, fmt.Errorf("no authorization server metadata for %s", issuer)
	}
	clientID := c.ClientID
	if clientID == "" {
		reg, err := Register(ctx, c.HTTP, md.String("registration_endpoint"), c.RedirectURI)
		if err != nil {
			return nil, err
		}
		if clientID, _ = reg.String("client_id"); clientID == "" {
			return nil, fmt.Errorf("registration answered %d without a client_id", reg.Status)
		}
		c.ClientID = clientID
	}
	verifier, challenge := PKCE()
	resp, err := Authorize(ctx, c.Approve, Request{Endpoint: md.String("authorization_endpoint"), ClientID: clientID,
		RedirectURI: c.RedirectURI, Challenge: challenge, Method: "S256", State: "conform", Resource: resource, Scope: c.Scope})
	if err != nil {
		return nil, err
	}
	code := resp.Params.Get("code")
	if code == "" {
		return nil, fmt.Errorf("the authorization answered %s without a code", resp.Location)
	}
	tok, err := SecretFor(md, c.Secret).Token(ctx, c.HTTP, md.String("token_endpoint"), CodeForm(code, clientID, c.RedirectURI, verifier, resource))
	if err != nil {
		return nil, err
	}
	if tok.Status != http.StatusOK || tok.JSON == nil {
		return nil, fmt.Errorf("the token endpoint answered %d", tok.Status)
	}
	return tok.JSON, nil
}

// Scope is the scope a client asks for, as MCP's Scope Selection Strategy
// orders it: the scope of the 401 challenge, if any; else every scope of the
// protected resource metadata's scopes_supported; else none ("").
func Scope(challengeScope string, scopesSupported []string) string {
	if s := strings.TrimSpace(challengeScope); s != "" {
		return s
	}
	return strings.Join(scopesSupported, " ")
}

// FindIssuer returns the authorization server a client would pick for the
// MCP endpoint, and the scopes the metadata lists: the first of
// authorization_servers in the protected resource metadata, which it looks
// for as MCP's Authorization Server Discovery says: at challengeMetadata
// (the 401 challenge's resource_metadata) when not "", else at the
// well-known URI of the endpoint's path, else at the root one.
func FindIssuer(ctx context.Context, hc *http.Client, endpoint, challengeMetadata string) (string, []string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return "", nil, fmt.Errorf("MCP endpoint %q is not an absolute URL", endpoint)
	}
	root := u.Scheme + "://" + u.Host + "/.well-known/oauth-protected-resource"
	candidates := []string{challengeMetadata, "", root}
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		candidates[1] = root + p
	}
	oc := oauthclient.New("", oauthclient.Endpoints{}, hc)
	for _, c := range candidates {
		if c == "" {
			continue
		}
		r, err := oc.Get(ctx, c)
		if err != nil || r.Status != http.StatusOK || r.JSON == nil {
			continue
		}
		servers, _ := r.JSON["authorization_servers"].([]any)
		if len(servers) > 0 {
			if s, ok := servers[0].(string); ok && s != "" {
				var scopes []string
				list, _ := r.JSON["scopes_supported"].([]any)
				for _, v := range list {
					if sc, ok := v.(string); ok {
						scopes = append(scopes, sc)
					}
				}
				return s, scopes, nil
			}
		}
	}
	return "", nil, fmt.Errorf("no protected resource metadata naming an authorization server for %s", endpoint)
}

// Claims reads the payload of a token that is a JWT whose claims can be read
// without a key (RFC 7519 section 3); ok is false for any other token. The
// harness only reads what the token says of itself, to check a premise
// (an expiry, an audience); it verifies nothing.
func Claims(token string) (map[string]any, bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, false
	}
	var claims map[string]any
	if json.Unmarshal(payload, &claims) != nil {
		return nil, false
	}
	return claims, true
}

// Audience is a JWT's aud claim (RFC 7519 4.1.3), a string or a list.
func Audience(claims map[string]any) []string {
	switch aud := claims["aud"].(type) {
	case string:
		return []string{aud}
	case []any:
		var out []string
		for _, v := range aud {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// HonoursResource says whether the authorization server of md binds tokens
// to the resource asked for (RFC 8707), as far as a client can see: token,
// obtained for resource, is a readable JWT whose aud names resource and not
// endpoint; or the server refuses an authorization request for a resource it
// cannot know with invalid_target (RFC 8707 section 2). It returns what
// showed it, or why nothing did ("" proof).
func (c Client) HonoursResource(ctx context.Context, issuer, token, resource, endpoint string) (proof, why string) {
	if claims, ok := Claims(token); ok {
		aud := Audience(claims)
		if slices.Contains(aud, resource) && !slices.Contains(aud, endpoint) {
			return fmt.Sprintf("its aud is %q", aud), ""
		}
		return "", fmt.Sprintf("the token obtained for %s is a JWT whose aud is %q", resource, aud)
	}
	const unknown = "https://unknown-resource.conform.invalid/mcp"
	md, _, err := Discover(ctx, c.HTTP, issuer)
	if err != nil || md == nil {
		return "", "the authorization server's metadata could not be read again to ask it for an unknown resource"
	}
	_, challenge := PKCE()
	r, err := Authorize(ctx, c.Approve, Request{Endpoint: md.String("authorization_endpoint"), ClientID: c.ClientID, RedirectURI: c.RedirectURI,
		Challenge: challenge, Method: "S256", State: "conform", Resource: unknown, Scope: c.Scope})
	if err == nil && r.Params.Get("error") == "invalid_target" {
		return "the authorization server refuses the resource " + unknown + " with invalid_target", ""
	}
	return "", "the token is no readable JWT, and the authorization server did not refuse the resource " + unknown + " with invalid_target"
}
