package oauthclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// DeviceAuthorization is a device authorization response (RFC 8628
// section 3.2), as a sign-in uses it.
type DeviceAuthorization struct {
	DeviceCode, UserCode, VerificationURI, VerificationURIComplete string
	// Interval is the wait between polls; 0 when the answer gives none.
	Interval time.Duration
	// Expiry is when the device code expires; zero when the answer gives no
	// expires_in.
	Expiry time.Time
}

// ErrDeviceCodeExpired ends a DeviceSignIn whose device code expired
// (RFC 8628 section 3.2, expires_in) before the approval came; RFC 8628
// section 3.5 leaves it to the client to start again.
var ErrDeviceCodeExpired = errors.New("the device code expired before the sign-in was approved")

// ErrClientRefused is what a DeviceSignIn's Start wraps when the host
// refused the client itself, the sign of a registration it removed.
var ErrClientRefused = errors.New("the host refused the client")

// DeviceSignIn is one sign-in through the device grant (RFC 8628) by a
// public client registered with RFC 7591: register (or reuse a kept client),
// start a device authorization, hand the user code to whoever approves it,
// and poll until the host issues the credential. It is written once for
// every caller: conform login, with a person, and the harness's own
// sign-ins, with an approval command.
type DeviceSignIn struct {
	// Client talks to the host's registration, device authorization and
	// token endpoints.
	Client *Client
	// ClientName is the client_name a registration sends.
	ClientName string
	// ClientID is a client registered before; "" registers one. When the
	// host refuses a kept client, it is registered again: source section 3
	// says an unused registration is removed after seven days, and "the
	// client must then register again".
	ClientID string
	// Registered, when set, is told each client registered, for the caller
	// to keep (source section 7.3: register once, keep the client_id).
	Registered func(clientID string) error
	// Forgotten, when set, is told the kept client the host refused, before
	// the client registers again.
	Forgotten func(clientID string)
	// Start, when set, sends the device authorization request in place of
	// Client, returning an error that wraps ErrClientRefused when the host
	// refuses the client itself.
	Start func(ctx context.Context, clientID string) (*DeviceAuthorization, error)
	// Present hands the device authorization to whoever approves it: the
	// verification URI and user code for a person (RFC 8628 section 3.3),
	// the user code for an approval command.
	Present func(ctx context.Context, da *DeviceAuthorization) error
	// Sleep waits between polls (target.Sleep, or a controllable clock's).
	Sleep func(context.Context, time.Duration) error
	// MaxPolls, when above 0, bounds the polls after the approval: an
	// approved sign-in that still answers authorization_pending this often
	// is not going to complete.
	MaxPolls int
}

// Run signs in and returns the access token.
func (s *DeviceSignIn) Run(ctx context.Context) (string, error) {
	fresh := false
	if s.ClientID == "" {
		if err := s.register(ctx); err != nil {
			return "", err
		}
		fresh = true
	}
	da, err := s.start(ctx)
	if errors.Is(err, ErrClientRefused) && !fresh {
		if s.Forgotten != nil {
			s.Forgotten(s.ClientID)
		}
		if err := s.register(ctx); err != nil {
			return "", err
		}
		da, err = s.start(ctx)
	}
	if err != nil {
		return "", fmt.Errorf("device authorization: %w", err)
	}
	if err := s.Present(ctx, da); err != nil {
		return "", err
	}
	polls := 0
	stop := func() error {
		if !da.Expiry.IsZero() && time.Now().After(da.Expiry) {
			return ErrDeviceCodeExpired
		}
		if polls++; s.MaxPolls > 0 && polls > s.MaxPolls {
			return fmt.Errorf("still pending after %d polls", s.MaxPolls)
		}
		return nil
	}
	// The grant's name is the one the host takes (DeviceGrant): the source
	// says device_code, RFC 8628 the URN.
	form := url.Values{"device_code": {da.DeviceCode}, "client_id": {s.ClientID}}
	access, err := s.Client.DeviceGrant().Poll(ctx, form, da.Interval, s.Sleep, stop)
	if err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	return access, nil
}

// register registers the client (RFC 7591 section 3; source sections 4
// and 7.3) and keeps its client_id. A registration throttled with a short
// Retry-After is sent once more after it (ObeyRetryAfter).
func (s *DeviceSignIn) register(ctx context.Context) error {
	r, err := ObeyRetryAfter(ctx, s.Sleep, func() (*Reply, error) { return s.Client.Register(ctx, DeviceRegistration(s.ClientName)) })
	if err != nil {
		return fmt.Errorf("register: %w", err)
	}
	id, ok := r.String("client_id")
	switch {
	case ok && id != "" && r.Status/100 == 2:
	case r.Status == http.StatusTooManyRequests:
		wait := r.Header.Get("Retry-After")
		if wait == "" {
			wait = "a while"
		} else {
			wait += " seconds"
		}
		return fmt.Errorf("register: the host throttles registrations from this address (HTTP 429); try again in %s", wait)
	default:
		code, _ := r.String("error")
		desc, _ := r.String("error_description")
		return fmt.Errorf("register: HTTP %d %s %s", r.Status, code, desc)
	}
	s.ClientID = id
	if s.Registered != nil {
		return s.Registered(id)
	}
	return nil
}

// start sends the device authorization request (RFC 8628 section 3.1)
// through Start, or Client.
func (s *DeviceSignIn) start(ctx context.Context) (*DeviceAuthorization, error) {
	if s.Start != nil {
		return s.Start(ctx, s.ClientID)
	}
	r, err := s.Client.DeviceAuthorize(ctx, s.ClientID, nil)
	if err != nil {
		return nil, err
	}
	da := &DeviceAuthorization{}
	da.DeviceCode, _ = r.String("device_code")
	da.UserCode, _ = r.String("user_code")
	if r.Status != http.StatusOK || da.DeviceCode == "" || da.UserCode == "" {
		if r.Status/100 == 4 && r.Status != http.StatusTooManyRequests {
			return nil, fmt.Errorf("%w: HTTP %d: %s", ErrClientRefused, r.Status, r.Body)
		}
		return nil, fmt.Errorf("HTTP %d: %s", r.Status, r.Body)
	}
	da.VerificationURI, _ = r.String("verification_uri")
	da.VerificationURIComplete, _ = r.String("verification_uri_complete")
	if v, ok := r.JSON["interval"].(float64); ok && v > 0 {
		da.Interval = time.Duration(v) * time.Second
	}
	if v, ok := r.JSON["expires_in"].(float64); ok && v > 0 {
		da.Expiry = time.Now().Add(time.Duration(v) * time.Second)
	}
	return da, nil
}
