package oauthclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Register sends a client registration request (RFC 7591 section 3.1): body
// marshalled as JSON as given (a struct, a map, or json.RawMessage).
func (c *Client) Register(ctx context.Context, body any) (*Reply, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode registration request: %w", err)
	}
	return c.RegisterRaw(ctx, jsonType, raw)
}

// RegistrationEndpoint is the URL registrations are sent to: the
// authorization server a client registered here is known by, when no
// metadata names its issuer.
func (c *Client) RegistrationEndpoint() string { return Resolve(c.base, c.endpoints.Register) }

// RegisterRaw posts body as is to the registration endpoint, with the given
// Content-Type ("" sends none), for malformed-request checks.
func (c *Client) RegisterRaw(ctx context.Context, contentType string, body []byte) (*Reply, error) {
	return c.do(ctx, http.MethodPost, c.endpoints.Register, contentType, body)
}

// DeviceRedirectURI is the loopback redirect the harness registers with a
// device grant client (RFC 8252 section 7.3); the device grant never
// redirects, but the source's registration requires one.
const DeviceRedirectURI = "http://127.0.0.1:8765/callback"

// DeviceRegistration is the body the harness registers a device grant
// client with: the redirect_uris source section 4 requires, and a name that
// lets a person recognise the client on a consent page.
func DeviceRegistration(clientName string) map[string]any {
	return map[string]any{"client_name": clientName, "redirect_uris": []string{DeviceRedirectURI}}
}

// RegisterCodeClient registers a public client for the authorization code
// grant (RFC 7591 section 2) at endpoint and returns the answer. It names
// its application_type, as MCP's Client Registration says clients MUST,
// since an OpenID provider takes a registration without one as a web
// client's and may then hold a loopback redirect URI to its registered port.
func RegisterCodeClient(ctx context.Context, hc *http.Client, endpoint, redirectURI string) (*Reply, error) {
	return New("", Endpoints{Register: endpoint}, hc).Register(ctx, CodeClientMetadata(redirectURI))
}

// CodeClientMetadata is the body RegisterCodeClient sends, for a caller
// that registers the same client with one field changed or added.
func CodeClientMetadata(redirectURI string) map[string]any {
	return map[string]any{
		"client_name":                "conform",
		"redirect_uris":              []string{redirectURI},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
		"application_type":           ApplicationType(redirectURI),
	}
}

// Registered reads a registration's answer (RFC 7591 section 3.2.1): the
// client_id, and the client_secret with the token_endpoint_auth_method the
// server registered, which a server may choose for the client whatever it
// asked for; "" when absent. The method defaults to client_secret_basic
// when a secret comes without one (RFC 7591 section 2).
func Registered(r *Reply) (id, secret, method string) {
	id, _ = r.String("client_id")
	secret, _ = r.String("client_secret")
	method, _ = r.String("token_endpoint_auth_method")
	if secret != "" && method == "" {
		method = AuthBasic
	}
	return id, secret, method
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
