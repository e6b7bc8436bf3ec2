package profile

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"go.yaml.in/yaml/v3"
)

// MCPAuthorization is what the mcp-authorization pack needs to know about a
// server beyond its URL (spec/mcp-authorization). Every key is optional: a
// scenario whose needs are not met is not run, with the key named.
type MCPAuthorization struct {
	// ProtectedRequest is a JSON-RPC request the server serves only with a
	// valid access token. The reference host lets anonymous callers list
	// tools (source 5.3), so its default is the privileged write.
	ProtectedRequest Request `yaml:"protected_request"`
	// ScopedRequest needs a scope the limited token lacks; ProtectedRequest
	// when unset.
	ScopedRequest *Request `yaml:"scoped_request,omitempty"`
	// InvalidOrigin is an Origin the server cannot trust (a DNS rebinding
	// page's), sent to check the transport's Origin validation.
	InvalidOrigin string `yaml:"invalid_origin"`
	// ExpiredTokenEnv, OtherResourceTokenEnv and LimitedTokenEnv name
	// environment variables holding tokens the server's authorization server
	// issued: one that has expired, one issued for another resource (RFC
	// 8707), and one without the scope ScopedRequest needs.
	ExpiredTokenEnv       string `yaml:"expired_token_env"`
	OtherResourceTokenEnv string `yaml:"other_resource_token_env"`
	LimitedTokenEnv       string `yaml:"limited_token_env"`
	// ExpiredTokenExpiredAt says when the expired token expired (RFC 3339):
	// TOK-4 is judged only with evidence of that, and an opaque token
	// carries none of its own.
	ExpiredTokenExpiredAt string `yaml:"expired_token_expired_at"`
	// IntrospectionEndpoint is RFC 7662's endpoint, for an authorization
	// server that does not advertise its introspection_endpoint;
	// IntrospectionClientID and IntrospectionClientSecretEnv the client it
	// takes (default: ClientID and ClientSecretEnv).
	IntrospectionEndpoint        string `yaml:"introspection_endpoint"`
	IntrospectionClientID        string `yaml:"introspection_client_id"`
	IntrospectionClientSecretEnv string `yaml:"introspection_client_secret_env"`
	// OtherUserTokenEnv names an environment variable holding a valid token
	// the server's authorization server issued to another user than the
	// target's credential's, for the rule that a session handle is refused
	// to any other principal (Security Best Practices 2.4.2).
	OtherUserTokenEnv string `yaml:"other_user_token_env"`
	// OtherResource is another resource the same authorization server
	// issues tokens for; with the authorization approval command the suite
	// obtains a token for it (RFC 8707) when other_resource_token_env gives
	// none.
	OtherResource string `yaml:"other_resource"`
	// Issuer is the authorization server to check; the first of the
	// metadata's authorization_servers when unset. It may be on another
	// origin than the target.
	Issuer string `yaml:"issuer"`
	// ClientID is a client registered beforehand with RedirectURI, for
	// authorization servers that offer no dynamic registration.
	ClientID string `yaml:"client_id"`
	// ClientSecretEnv names the environment variable holding ClientID's
	// secret, for an authorization server that serves confidential clients
	// only (never the secret itself: a profile is no place for it).
	ClientSecretEnv string `yaml:"client_secret_env"`
	// ClientAuthMethod is the token_endpoint_auth_method ClientID was
	// registered with, when known (RFC 7591 2: the client's "requested
	// authentication method for the token endpoint"). A server may hold the
	// client to it, so the secret is sent that way, and CLIENTAUTH-1, which
	// sends it in the body, judges only a client registered for
	// client_secret_post or one whose method is not given.
	ClientAuthMethod string `yaml:"client_auth_method"`
	// SecondClientID is another client registered beforehand with
	// RedirectURI, whose attempts to redeem the first client's code or
	// refresh token must fail (CODE-2, REFRESH-3); without it the suite
	// registers one when the server offers registration.
	SecondClientID string `yaml:"second_client_id"`
	// SecondClientSecretEnv names the environment variable holding
	// SecondClientID's secret, when that client is confidential.
	SecondClientSecretEnv string `yaml:"second_client_secret_env"`
	// RedirectURI is the redirect URI the suite registers and sends; nothing
	// listens on it, the approval command hands the redirect back.
	RedirectURI string `yaml:"redirect_uri"`
	// Scope is sent in authorization requests when set.
	Scope string `yaml:"scope"`
}

// Request is one JSON-RPC request by method and params.
type Request struct {
	Method string         `yaml:"method"`
	Params map[string]any `yaml:"params,omitempty"`
}

// defaultAuthorization names no protected request: which request a server
// serves only with a token is the server's to say, and the pre-flight
// chooses tools/list only when the server refuses it anonymously
// (runner.CheckHostFor).
func defaultAuthorization() MCPAuthorization {
	return MCPAuthorization{
		InvalidOrigin: "http://dns-rebinding.conform.invalid",
		RedirectURI:   "http://127.0.0.1:8765/callback",
	}
}

// WriteRequest is the reference host's privileged write of the profile's
// writable path: a request it serves only with a token.
func WriteRequest(t Tools, p Paths) Request {
	return Request{Method: "tools/call", Params: map[string]any{
		"name":      t.Write,
		"arguments": map[string]any{"path": p.Writable, "content": "written by the conformance suite\n"},
	}}
}

// validate checks the keys a run cannot use as given.
func (a MCPAuthorization) validate() error {
	if a.ProtectedRequest.Params != nil && strings.TrimSpace(a.ProtectedRequest.Method) == "" {
		return fmt.Errorf("profile: mcp_authorization.protected_request.method is required when its params are set")
	}
	if a.ScopedRequest != nil && strings.TrimSpace(a.ScopedRequest.Method) == "" {
		return fmt.Errorf("profile: mcp_authorization.scoped_request.method is required when scoped_request is set")
	}
	if a.ClientSecretEnv != "" && a.ClientID == "" {
		return fmt.Errorf("profile: mcp_authorization.client_secret_env needs mcp_authorization.client_id, the client the secret is for")
	}
	if a.ClientAuthMethod != "" && a.ClientID == "" {
		return fmt.Errorf("profile: mcp_authorization.client_auth_method needs mcp_authorization.client_id, the client registered with it")
	}
	// A method the harness does not speak would have the secret sent some
	// other way than the client was registered for, and the server's
	// refusal read as its departure.
	if m := a.ClientAuthMethod; m != "" && m != oauthclient.AuthNone && m != oauthclient.AuthBasic && m != oauthclient.AuthPost {
		return fmt.Errorf("profile: mcp_authorization.client_auth_method must be %s, %s or %s (RFC 7591 2), got %q", oauthclient.AuthBasic, oauthclient.AuthPost, oauthclient.AuthNone, m)
	}
	if a.SecondClientSecretEnv != "" && a.SecondClientID == "" {
		return fmt.Errorf("profile: mcp_authorization.second_client_secret_env needs mcp_authorization.second_client_id, the client the secret is for")
	}
	if a.SecondClientID != "" && a.SecondClientID == a.ClientID {
		return fmt.Errorf("profile: mcp_authorization.second_client_id must name another client than mcp_authorization.client_id")
	}
	if a.IntrospectionClientSecretEnv != "" && a.IntrospectionClientID == "" {
		return fmt.Errorf("profile: mcp_authorization.introspection_client_secret_env needs mcp_authorization.introspection_client_id, the client the secret is for")
	}
	if a.ExpiredTokenExpiredAt != "" {
		if _, err := time.Parse(time.RFC3339, a.ExpiredTokenExpiredAt); err != nil {
			return fmt.Errorf("profile: mcp_authorization.expired_token_expired_at must be an RFC 3339 time like 2026-01-31T12:00:00Z, got %q", a.ExpiredTokenExpiredAt)
		}
	}
	if a.IntrospectionEndpoint != "" {
		if err := checkURL("mcp_authorization.introspection_endpoint", a.IntrospectionEndpoint); err != nil {
			return err
		}
	}
	if a.Issuer != "" {
		if err := checkURL("mcp_authorization.issuer", a.Issuer); err != nil {
			return err
		}
	}
	if a.OtherResource != "" {
		if err := checkURL("mcp_authorization.other_resource", a.OtherResource); err != nil {
			return err
		}
	}
	u, err := url.Parse(a.RedirectURI)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return fmt.Errorf("profile: mcp_authorization.redirect_uri must be an absolute URL, got %q", a.RedirectURI)
	}
	if a.InvalidOrigin != "" {
		if o, err := url.Parse(a.InvalidOrigin); err != nil || o.Scheme == "" || o.Host == "" {
			return fmt.Errorf("profile: mcp_authorization.invalid_origin must be an origin like http://example.invalid, got %q", a.InvalidOrigin)
		}
	}
	return nil
}

// ExpiredToken, OtherResourceToken and LimitedToken return the tokens the
// profile names from the environment, or "".
func (a MCPAuthorization) ExpiredToken() string { return env(a.ExpiredTokenEnv) }

// OtherResourceToken is a token issued for another resource, or "".
func (a MCPAuthorization) OtherResourceToken() string { return env(a.OtherResourceTokenEnv) }

// ClientSecret is ClientID's secret from the environment, or "".
func (a MCPAuthorization) ClientSecret() string { return env(a.ClientSecretEnv) }

// ExpiredAt is when the expired token expired, as the profile states it;
// zero when it does not.
func (a MCPAuthorization) ExpiredAt() time.Time {
	t, _ := time.Parse(time.RFC3339, a.ExpiredTokenExpiredAt)
	return t
}

// Introspector is the client that asks the introspection endpoint, with its
// secret from the environment: the profile's introspection client, else
// ClientID with its secret.
func (a MCPAuthorization) Introspector() (clientID, secret string) {
	if a.IntrospectionClientID != "" {
		return a.IntrospectionClientID, env(a.IntrospectionClientSecretEnv)
	}
	return a.ClientID, a.ClientSecret()
}

// SecondClientSecret is SecondClientID's secret from the environment, or "".
func (a MCPAuthorization) SecondClientSecret() string { return env(a.SecondClientSecretEnv) }

// LimitedToken is a token without the scope ScopedRequest needs, or "".
func (a MCPAuthorization) LimitedToken() string { return env(a.LimitedTokenEnv) }

// OtherUserToken is a valid token of another user than the credential's, or "".
func (a MCPAuthorization) OtherUserToken() string { return env(a.OtherUserTokenEnv) }

// Scoped is the request that needs more scope than the limited token has.
func (a MCPAuthorization) Scoped() Request {
	if a.ScopedRequest != nil {
		return *a.ScopedRequest
	}
	return a.ProtectedRequest
}

// UnmarshalYAML replaces the whole request, so that a profile naming only a
// method does not keep the default request's params.
func (r *Request) UnmarshalYAML(n *yaml.Node) error {
	var v struct {
		Method string         `yaml:"method"`
		Params map[string]any `yaml:"params"`
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k != "method" && k != "params" {
			return fmt.Errorf("line %d: field %s not found in a request (method, params)", n.Content[i].Line, k)
		}
	}
	if err := n.Decode(&v); err != nil {
		return err
	}
	*r = Request{Method: v.Method, Params: v.Params}
	return nil
}
