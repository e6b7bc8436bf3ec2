// Package oauthclient is the harness's one OAuth client, spoken with plain
// net/http so that every status, header and body reaches a scenario
// unchanged (PRODUCT.md section 7). Each concept has its own file:
//
//   - resource.go: protected resource metadata (RFC 9728) and the issuer it names;
//   - servermetadata.go: authorization server metadata (RFC 8414, OpenID
//     Connect Discovery) in the order MCP's Authorization Server Discovery gives;
//   - challenge.go: a 401's challenge followed to the issuer and the scope;
//   - registration.go: client registration (RFC 7591);
//   - devicegrant.go and devicesignin.go: the device grant (RFC 8628) and a
//     whole sign-in through it;
//   - authcode.go: the authorization code grant with PKCE (RFC 7636), the
//     resource indicator (RFC 8707) and the iss of the response (RFC 9207);
//   - token.go, refresh.go, introspection.go: the token endpoint (OAuth 2.1
//     section 3.2), refresh (section 4.3), introspection (RFC 7662);
//   - claims.go: what a JWT access token says of itself (RFC 7519).
//
// Each well-known URI suffix is written once, in the file of its concept.
// The package judges nothing: scenarios send the requests they check
// themselves, and the flows here (CodeFlow, DeviceSignIn) only obtain what
// a run presents.
package oauthclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/conform-mcp/conform/harness/wire"
)

// DeviceGrantType is the grant_type of a device access token request (RFC 8628 section 3.4).
const DeviceGrantType = "urn:ietf:params:oauth:grant-type:device_code"

const (
	formType = "application/x-www-form-urlencoded"
	jsonType = "application/json"
	// maxBody bounds what is read of one response.
	maxBody = 8 << 20
)

// Endpoints are the host's authorization endpoints (the oauth keys of the
// target profile): paths relative to the base URL, or absolute URLs when the
// authorization server sits on another origin.
type Endpoints struct {
	Register, Token, DeviceAuthorization string
}

// Client talks to one host's OAuth endpoints. It holds no state between
// requests and is safe for concurrent use.
type Client struct {
	base      string
	endpoints Endpoints
	hc        *http.Client
	// basic, when set, authenticates the client with HTTP Basic
	// (client_secret_basic, OAuth 2.1 2.4.1).
	basic *[2]string
}

// WithBasicAuth returns a copy of c that authenticates every request with
// the client's id and secret in HTTP Basic (OAuth 2.1 section 2.4.1).
func (c *Client) WithBasicAuth(clientID, secret string) *Client {
	out := *c
	out.basic = &[2]string{url.QueryEscape(clientID), url.QueryEscape(secret)}
	return &out
}

// Reply is one response as received, with its masked exchange.
type Reply struct {
	Status int
	Header http.Header
	// Body is the response body, bounded at 8 MiB.
	Body []byte
	// JSON is the body decoded as a JSON object; nil if the body is not one.
	JSON map[string]any
	// Exchange is the request and response with credentials masked.
	Exchange wire.Exchange
}

// New returns a client for the host at base (e.g. "http://h:8080"). A nil hc
// means http.DefaultClient.
func New(base string, endpoints Endpoints, hc *http.Client) *Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{base: strings.TrimRight(base, "/"), endpoints: endpoints, hc: hc}
}

// Resolve returns the URL of an endpoint of the host at base: ref itself when
// it is an absolute http or https URL (an authorization server on another
// origin, RFC 9728 section 2), otherwise ref as a path under base.
func Resolve(base, ref string) string {
	if u, err := url.Parse(ref); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return ref
	}
	return strings.TrimRight(base, "/") + ref
}

// String returns a string member of the JSON body; false if the body is not a
// JSON object or the member is absent or not a string.
func (r *Reply) String(field string) (string, bool) {
	s, ok := r.JSON[field].(string)
	return s, ok
}

// Get fetches path under the base URL (or path itself when absolute), for the well-known documents (RFC 9728 section 3,
// RFC 8414 section 3, and the host's /.well-known/mcp.json).
func (c *Client) Get(ctx context.Context, path string) (*Reply, error) {
	return c.do(ctx, http.MethodGet, path, "", nil)
}

// do makes one exchange. Only a transport failure is an error; every HTTP
// status is a Reply.
func (c *Client) do(ctx context.Context, method, path, contentType string, body []byte) (*Reply, error) {
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	target := Resolve(c.base, path)
	req, err := http.NewRequestWithContext(ctx, method, target, reader)
	if err != nil {
		return nil, fmt.Errorf("build request to %s: %w", target, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.basic != nil {
		req.SetBasicAuth(c.basic[0], c.basic[1])
	}
	// Every endpoint here answers in JSON (RFC 6749 section 5.1 and 5.2,
	// RFC 7591 section 3.2, RFC 8628 section 3.2).
	req.Header.Set("Accept", jsonType)
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("read response of %s %s: %w", method, target, err)
	}
	r := &Reply{
		Status:   resp.StatusCode,
		Header:   resp.Header,
		Body:     raw,
		Exchange: wire.Record(req, body, resp, raw, nil),
	}
	var object map[string]any
	if json.Unmarshal(raw, &object) == nil {
		r.JSON = object
	}
	return r, nil
}

// Answer is the reply as a one-line description reads it (wire.Describe).
func (r *Reply) Answer() wire.Answer {
	return wire.Answer{Status: r.Status, Body: r.Body, JSON: r.JSON}
}
