package oauthclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// DeviceAuthorize sends a device authorization request (RFC 8628 section 3.1):
// client_id plus any extra parameters (scope, or deliberately bad ones).
func (c *Client) DeviceAuthorize(ctx context.Context, clientID string, extra url.Values) (*Reply, error) {
	form := url.Values{}
	for k, vs := range extra {
		form[k] = append([]string(nil), vs...)
	}
	form.Set("client_id", clientID)
	return c.do(ctx, http.MethodPost, c.endpoints.DeviceAuthorization, formType, []byte(form.Encode()))
}

// ShortDeviceGrantType is the device grant's name in the source document
// (section 4: "Supported grant types: device_code, ..."); RFC 8628 section
// 3.4 names it DeviceGrantType. A host may take either.
const ShortDeviceGrantType = "device_code"

// DeviceGrant sends device access token requests (RFC 8628 section 3.4) by
// the name the host takes: the one its authorization server metadata
// advertises in grant_types_supported (RFC 8414 section 2), else the URN,
// and the source's "device_code" when the URN is answered
// unsupported_grant_type. It learns the name once and is safe for concurrent
// use.
type DeviceGrant struct {
	c *Client

	mu         sync.Mutex
	discovered bool
	name, how  string
}

// DeviceGrant returns the device grant sender of this client's host.
func (c *Client) DeviceGrant() *DeviceGrant { return &DeviceGrant{c: c} }

// Name returns the grant name the host took and how that was learned, or ""
// before a token request told.
func (g *DeviceGrant) Name() (name, how string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.name, g.how
}

func (g *DeviceGrant) learn(name, how string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.name == "" {
		g.name, g.how = name, how
	}
}

// Token sends form (device_code, client_id) as a device access token
// request, with grant_type set to the name the host takes.
func (g *DeviceGrant) Token(ctx context.Context, form url.Values) (*Reply, error) {
	g.discover(ctx)
	if name, _ := g.Name(); name != "" {
		form.Set("grant_type", name)
		return g.c.Token(ctx, form)
	}
	form.Set("grant_type", DeviceGrantType)
	r, err := g.c.Token(ctx, form)
	if err != nil || !unsupportedGrant(r) {
		if err == nil {
			g.learn(DeviceGrantType, "answered, not as unsupported_grant_type")
		}
		return r, err
	}
	form.Set("grant_type", ShortDeviceGrantType)
	short, err := g.c.Token(ctx, form)
	if err != nil {
		return nil, err
	}
	if !unsupportedGrant(short) {
		g.learn(ShortDeviceGrantType, "the URN was answered unsupported_grant_type")
	}
	return short, nil
}

func unsupportedGrant(r *Reply) bool {
	code, _ := r.String("error")
	return code == "unsupported_grant_type"
}

// discover reads grant_types_supported once, from the authorization server
// metadata (RFC 8414 section 2) of the first authorization server the
// protected resource metadata of the host names (FindIssuer, with the host's
// base URL as the resource), or of the host's own origin when none does;
// both found in the order MCP's Authorization Server Discovery gives.
// Metadata the host does not serve teaches nothing; the token endpoint's
// answers then decide.
func (g *DeviceGrant) discover(ctx context.Context) {
	g.mu.Lock()
	if g.discovered {
		g.mu.Unlock()
		return
	}
	g.discovered = true
	g.mu.Unlock()

	issuer, _, err := FindIssuer(ctx, g.c.hc, g.c.base, "")
	if err != nil {
		issuer = g.c.base
	}
	md, _, err := DiscoverServer(ctx, g.c.hc, issuer)
	if err != nil || md == nil {
		return
	}
	grants := md.Strings("grant_types_supported")
	switch {
	case slices.Contains(grants, DeviceGrantType):
		g.learn(DeviceGrantType, "advertised in grant_types_supported")
	case slices.Contains(grants, ShortDeviceGrantType):
		g.learn(ShortDeviceGrantType, "advertised in grant_types_supported")
	}
}

// Poll asks for the token until the host issues one, following RFC 8628
// section 3.5: it keeps polling on authorization_pending, adds five seconds
// to the interval on slow_down, and waits the interval through sleep between
// polls (a caller with a controllable clock need not wait in real time).
// Before each poll, stop may end the wait with its error (an expired device
// code, too many polls). Any other answer ends polling with the host's words.
func (g *DeviceGrant) Poll(ctx context.Context, form url.Values, interval time.Duration, sleep func(context.Context, time.Duration) error, stop func() error) (string, error) {
	if interval <= 0 {
		interval = 5 * time.Second
	}
	for {
		if err := stop(); err != nil {
			return "", err
		}
		r, err := g.Token(ctx, form)
		if err != nil {
			return "", err
		}
		if tok, ok := r.String("access_token"); ok && r.Status == http.StatusOK && tok != "" {
			return tok, nil
		}
		switch code, _ := r.String("error"); code {
		case "authorization_pending":
		case "slow_down":
			interval += 5 * time.Second
		default:
			return "", fmt.Errorf("the token endpoint answered HTTP %d: %s", r.Status, strings.TrimSpace(string(r.Body)))
		}
		if err := sleep(ctx, interval); err != nil {
			return "", err
		}
	}
}
