package store

import "time"

// Client is a registered OAuth client (RFC 7591).
type Client struct {
	// ID is the client_id handed to the client.
	ID string `json:"id"`
	// Name is the client_name it registered with, if any.
	Name string `json:"name,omitempty"`
	// RedirectURIs are the registered redirect_uris.
	RedirectURIs []string `json:"redirect_uris"`
	// GrantTypes are the grant types the client may use.
	GrantTypes []string `json:"grant_types"`
	// CreatedAt is when it registered.
	CreatedAt time.Time `json:"created_at"`
	// Used is set once an authorization completes for the client (a token is
	// issued to it); only unused registrations expire (source section 3).
	Used bool `json:"used,omitempty"`
}

// DeviceStatus is where a device authorization stands.
type DeviceStatus string

// The states of a device authorization (RFC 8628 section 3.5).
const (
	// DevicePending waits for the person to decide.
	DevicePending DeviceStatus = "pending"
	// DeviceApproved was approved; the next poll receives the credential.
	DeviceApproved DeviceStatus = "approved"
	// DeviceDenied was denied; polls answer access_denied.
	DeviceDenied DeviceStatus = "denied"
	// DeviceLocked met too many failed approval attempts (a wrong owner
	// secret, a forged form); polls answer access_denied.
	DeviceLocked DeviceStatus = "locked"
)

// DeviceCode is a device authorization request (RFC 8628 section 3.2), keyed
// by the Digest of its device_code.
type DeviceCode struct {
	// UserCode is the code the person types on the consent page.
	UserCode string `json:"user_code"`
	// ClientID is the client that asked.
	ClientID string `json:"client_id"`
	// IssuedAt is when the code was issued.
	IssuedAt time.Time `json:"issued_at"`
	// ExpiresAt ends the five-minute window (source section 3).
	ExpiresAt time.Time `json:"expires_at"`
	// Interval is the minimum time between polls the code was issued with.
	// The token endpoint keeps each poll's time, and the interval as
	// slow_down grows it, in memory: a poll changes no record.
	Interval time.Duration `json:"interval"`
	// Status is the person's decision so far.
	Status DeviceStatus `json:"status"`
	// Role is the role chosen at approval.
	Role string `json:"role,omitempty"`
	// Scope is the scope the client asked for (RFC 8628 section 3.1), only
	// names the host knows; the consent page offers the role that grants it.
	Scope string `json:"scope,omitempty"`
	// FailedTries counts failed approval attempts naming the user code.
	FailedTries int `json:"failed_tries,omitempty"`
}

// AuthCode is an authorization code (RFC 6749 section 4.1.2), keyed by the
// Digest of the code.
type AuthCode struct {
	// ClientID is the client the code was issued to.
	ClientID string `json:"client_id"`
	// RedirectURI is the redirect_uri of the authorization request.
	RedirectURI string `json:"redirect_uri"`
	// Challenge is the PKCE S256 code_challenge (RFC 7636).
	Challenge string `json:"code_challenge"`
	// Role is the role chosen at consent.
	Role string `json:"role"`
	// IssuedAt is when the code was issued.
	IssuedAt time.Time `json:"issued_at"`
	// ExpiresAt is when the code stops being redeemable.
	ExpiresAt time.Time `json:"expires_at"`
	// GrantID names what the code issues once redeemed; a replayed code
	// revokes every credential and refresh token carrying it.
	GrantID string `json:"grant_id"`
	// Redeemed is set when the code has been exchanged.
	Redeemed bool `json:"redeemed,omitempty"`
}

// Credential is an access token, keyed by its Digest.
type Credential struct {
	// ClientID is the client it was issued to.
	ClientID string `json:"client_id"`
	// Role is the role chosen at consent.
	Role string `json:"role"`
	// GrantID groups the credentials and refresh tokens of one authorization.
	GrantID string `json:"grant_id"`
	// IssuedAt is when it was issued.
	IssuedAt time.Time `json:"issued_at"`
	// ExpiresAt is when it stops working; zero means never (device grant,
	// source section 3).
	ExpiresAt time.Time `json:"expires_at,omitzero"`
}

// RefreshToken is a refresh token (RFC 6749 section 6), keyed by its Digest.
type RefreshToken struct {
	// ClientID is the client it was issued to.
	ClientID string `json:"client_id"`
	// Role is the role chosen at consent, carried to refreshed credentials.
	Role string `json:"role"`
	// GrantID groups it with the credentials of the same authorization.
	GrantID string `json:"grant_id"`
	// IssuedAt is when it was issued.
	IssuedAt time.Time `json:"issued_at"`
	// Access is the Digest of the credential issued alongside it, revoked
	// when the refresh token is rotated.
	Access Digest `json:"access"`
	// SpentAt is set when the token was rotated: it is kept, spent, so that
	// presenting it again is recognised as a replay.
	SpentAt time.Time `json:"spent_at,omitzero"`
}
