package oauthclient

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// PKCE returns a fresh code verifier and its S256 code challenge (RFC 7636
// sections 4.1 and 4.2).
func PKCE() (verifier, challenge string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	verifier = base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// State is a fresh state for an authorization request the flow sends on its
// own, as a client sends "one-time use CSRF tokens carried in the state
// parameter" (OAuth 2.1 2.3.3): servers refuse a short or constant one as
// too weak (ORY Hydra asks at least 8 characters, for their entropy).
func State() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "conform-" + base64.RawURLEncoding.EncodeToString(b)
}

// AuthorizationRequest is an authorization request (OAuth 2.1 section 4.1.1). Empty
// fields are not sent, so scenarios can leave out what they test.
type AuthorizationRequest struct {
	Endpoint, ClientID, RedirectURI, Challenge, Method, State, Resource, Scope string
	// ResponseType is "code" when empty, the one OAuth 2.1 defines.
	ResponseType string
}

// URL is the authorization URL a user agent is sent to.
func (r AuthorizationRequest) URL() (string, error) {
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

// AuthorizationResponse is an authorization response read from the redirect.
type AuthorizationResponse struct {
	// Location is the URL redirected to.
	Location string
	// ToRedirectURI is true when Location is the redirect URI sent (the same
	// scheme, authority and path).
	ToRedirectURI bool
	// Params are the query parameters: code, state, iss, or error.
	Params url.Values
}

// ReadRedirect parses where an authorization server sent the user agent.
func ReadRedirect(location, redirectURI string) (AuthorizationResponse, error) {
	loc, err := url.Parse(location)
	if err != nil {
		return AuthorizationResponse{}, fmt.Errorf("redirect %q: %w", location, err)
	}
	want, err := url.Parse(redirectURI)
	if err != nil {
		return AuthorizationResponse{}, fmt.Errorf("redirect_uri %q: %w", redirectURI, err)
	}
	same := strings.EqualFold(loc.Scheme, want.Scheme) && strings.EqualFold(loc.Host, want.Host) && loc.EscapedPath() == want.EscapedPath()
	return AuthorizationResponse{Location: location, ToRedirectURI: same, Params: loc.Query()}, nil
}

// CheckIss applies the validation MCP's Authorization Response Validation
// (RFC 9207 section 2.4) asks of a client before it sends the code to any
// token endpoint: a present iss must be the issuer the metadata md names,
// compared as strings without normalization (RFC 3986 section 6.2.1); an
// absent one is an error only when md sets
// authorization_response_iss_parameter_supported.
func (r AuthorizationResponse) CheckIss(md *ServerMetadata) error {
	want := md.String("issuer")
	got, present := r.Params["iss"]
	switch {
	case present && (len(got) != 1 || got[0] != want):
		return fmt.Errorf("the authorization response's iss %q is not the issuer %q (RFC 9207 section 2.4)", strings.Join(got, ","), want)
	case !present && md.Bool("authorization_response_iss_parameter_supported"):
		return fmt.Errorf("the authorization response carries no iss, which the metadata of %s promises (RFC 9207 section 2.4)", want)
	}
	return nil
}

// Authorize sends the request through the approver and reads the redirect.
func Authorize(ctx context.Context, approve func(ctx context.Context, authorizationURL string) (string, error), r AuthorizationRequest) (AuthorizationResponse, error) {
	u, err := r.URL()
	if err != nil {
		return AuthorizationResponse{}, err
	}
	loc, err := approve(ctx, u)
	if err != nil {
		return AuthorizationResponse{}, err
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

// CodeFlow is what Obtain needs to run the flow on its own.
type CodeFlow struct {
	HTTP *http.Client
	// Approve stands in for the person at the authorization endpoint (a
	// target.AuthorizationApprover): given the request URL, it returns the
	// URL the user agent was redirected to.
	Approve func(ctx context.Context, authorizationURL string) (string, error)
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
	// Method is ClientID's token_endpoint_auth_method when known (RFC 7591
	// section 2), "" when the metadata must tell.
	Method string
	// Sleep waits out a short Retry-After of a throttled registration or
	// token request before it is sent once more (ObeyRetryAfter); nil
	// sends each once.
	Sleep Sleep
}

// Obtain runs the whole flow against the authorization server of issuer for
// resource: discovery, registration, authorization through the approver, and
// the code's redemption. It returns the token response. The harness uses it
// for the tokens the mcp-authorization pack presents.
//
// A client it registers is kept in c.ClientID, with the secret and method
// its registration answered with (a server may make it confidential), so
// that the next flow uses it.
func (c *CodeFlow) Obtain(ctx context.Context, issuer, resource string) (map[string]any, error) {
	md, _, err := DiscoverServer(ctx, c.HTTP, issuer)
	if err != nil {
		return nil, err
	}
	if md == nil {
		return nil, fmt.Errorf("no authorization server metadata for %s", issuer)
	}
	clientID := c.ClientID
	if clientID == "" {
		reg, err := ObeyRetryAfter(ctx, c.Sleep, func() (*Reply, error) {
			return RegisterCodeClient(ctx, c.HTTP, md.String("registration_endpoint"), c.RedirectURI)
		})
		if err != nil {
			return nil, err
		}
		if reg.Throttled() {
			return nil, throttledError("registration", reg)
		}
		if clientID, c.Secret, c.Method = Registered(reg); clientID == "" {
			return nil, fmt.Errorf("registration answered %d without a client_id", reg.Status)
		}
		c.ClientID = clientID
	}
	verifier, challenge := PKCE()
	resp, err := Authorize(ctx, c.Approve, AuthorizationRequest{Endpoint: md.String("authorization_endpoint"), ClientID: clientID,
		RedirectURI: c.RedirectURI, Challenge: challenge, Method: "S256", State: State(), Resource: resource, Scope: c.Scope})
	if err != nil {
		return nil, err
	}
	if err := resp.CheckIss(md); err != nil {
		return nil, err
	}
	code := resp.Params.Get("code")
	if code == "" {
		return nil, fmt.Errorf("the authorization answered %s without a code", resp.Location)
	}
	tok, err := ObeyRetryAfter(ctx, c.Sleep, func() (*Reply, error) {
		return SecretFor(md, c.Method, c.Secret).Token(ctx, c.HTTP, md.String("token_endpoint"), CodeForm(code, clientID, c.RedirectURI, verifier, resource))
	})
	if err != nil {
		return nil, err
	}
	if tok.Throttled() {
		return nil, throttledError("token request", tok)
	}
	if tok.Status != http.StatusOK || tok.JSON == nil {
		return nil, fmt.Errorf("the token endpoint answered %d", tok.Status)
	}
	return tok.JSON, nil
}

// throttledError says which request a rate limit answered, and how.
func throttledError(what string, r *Reply) error {
	return fmt.Errorf("%s %w: HTTP %d, Retry-After %q", what, ErrThrottled, r.Status, r.Header.Get("Retry-After"))
}

// HonoursResource says whether the authorization server of md binds tokens
// to the resource asked for (RFC 8707), as far as a client can see: token,
// obtained for resource, is a readable JWT whose aud names resource and not
// endpoint; or the server refuses an authorization request for a resource it
// cannot know with invalid_target (RFC 8707 section 2). It returns what
// showed it, or why nothing did ("" proof).
func (c CodeFlow) HonoursResource(ctx context.Context, issuer, token, resource, endpoint string) (proof, why string) {
	if claims, ok := Claims(token); ok {
		aud := Audience(claims)
		if slices.Contains(aud, resource) && !slices.Contains(aud, endpoint) {
			return fmt.Sprintf("its aud is %q", aud), ""
		}
		return "", fmt.Sprintf("the token obtained for %s is a JWT whose aud is %q", resource, aud)
	}
	const unknown = "https://unknown-resource.conform.invalid/mcp"
	md, _, err := DiscoverServer(ctx, c.HTTP, issuer)
	if err != nil || md == nil {
		return "", "the authorization server's metadata could not be read again to ask it for an unknown resource"
	}
	_, challenge := PKCE()
	r, err := Authorize(ctx, c.Approve, AuthorizationRequest{Endpoint: md.String("authorization_endpoint"), ClientID: c.ClientID, RedirectURI: c.RedirectURI,
		Challenge: challenge, Method: "S256", State: State(), Resource: unknown, Scope: c.Scope})
	if err == nil && r.Params.Get("error") == "invalid_target" {
		return "the authorization server refuses the resource " + unknown + " with invalid_target", ""
	}
	return "", "the token is no readable JWT, and the authorization server did not refuse the resource " + unknown + " with invalid_target"
}
