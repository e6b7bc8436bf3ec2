// Package oauth is the authorization side of the reference host: client
// registration (RFC 7591), the device authorization grant (RFC 8628), the
// authorization code grant with PKCE (RFC 6749 section 4.1, RFC 7636),
// refresh tokens (RFC 6749 section 6), token revocation (RFC 7009), the
// consent pages behind the owner's sign-in, the limits that bound abuse of all of them, and the metadata
// documents (RFC 8414, RFC 9728). Error texts and time rules follow the
// source document (sections 2, 3, 4, 5, 7.3 and 8); what it does not show
// follows PRODUCT.md section 6.
//
// All state lives in the store, but for the rate limits and device codes'
// polling times, and all time comes from the injected clock, so a restart
// loses nothing a client was promised and a test can step across every
// window exactly.
package oauth

import (
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/conform-mcp/conform/impl/baseurl"
	"github.com/conform-mcp/conform/impl/clientaddr"
	"github.com/conform-mcp/conform/impl/clock"
	"github.com/conform-mcp/conform/impl/store"
)

// Clock is the time source the server reads.
type Clock interface{ Now() time.Time }

// Options configures a Server.
type Options struct {
	// Store holds every registration, code and credential. Required.
	Store *store.Store
	// Clock is the time source; nil means the wall clock.
	Clock Clock
	// BaseURL decides the {base_url} advertised in metadata and the
	// verification URI.
	BaseURL baseurl.Resolver
	// RegistrationBurst is how many registrations one source address may make
	// at once; 0 means 20.
	RegistrationBurst int
	// RegistrationEvery is how often one more registration is allowed once
	// the burst is spent; 0 means every 3 minutes.
	RegistrationEvery time.Duration
	// DeviceBurst is how many device authorizations one source address may
	// start at once; 0 means 30. One client may start a third of that.
	DeviceBurst int
	// DeviceEvery is how often one more is allowed once the burst is spent;
	// 0 means every 10 seconds (a client's own allowance refills three
	// times slower).
	DeviceEvery time.Duration
	// TokenBurst is how many token requests one source address may make at
	// once; 0 means 60.
	TokenBurst int
	// TokenEvery is how often one more is allowed once the burst is spent;
	// 0 means every 500 milliseconds.
	TokenEvery time.Duration
	// ClientAddr finds the source address the limits key on; the zero
	// value keys on the connection's address.
	ClientAddr clientaddr.Resolver
	// Logger receives one line per registration, issued credential and
	// internal failure; nil discards them.
	Logger *slog.Logger
}

// Server answers the OAuth routes and verifies the credentials it issued.
type Server struct {
	store  *store.Store
	clock  Clock
	base   baseurl.Resolver
	secret []byte
	log    *slog.Logger
	// clients finds a request's source address for the limits.
	clients clientaddr.Resolver

	// registrations limits registrations per source address.
	registrations *limiter
	// deviceByPeer and deviceByClient limit device authorizations per
	// source address and per client (RFC 8628 section 5.1 and 5.2).
	deviceByPeer, deviceByClient *limiter
	// tokens limits token requests per source address (RFC 8628 section
	// 5.2): every one costs a store lookup, and a poll a write.
	tokens *limiter
	// wrongTries limits, per source address, the tries on the consent pages
	// that fail: an unknown user code, a wrong owner secret, a forged form
	// (RFC 8628 section 5.1, "Brute Forcing the user_code").
	wrongTries *limiter

	// failedSignInLog bounds the log lines of failed sign-ins (loglimit.go).
	failedSignInLog *logLimit

	// polls keeps the device codes' polling times (polls.go).
	polls *polls

	// cimd fetches Client ID Metadata Documents (cimd.go).
	cimd *cimdFetcher

	sweepMu   sync.Mutex
	nextSweep time.Time
}

// The per-address limits a Server keeps when Options leave them zero: a
// burst at once, then one more every interval (source 7.3 and 8; RFC 8628
// section 5.1 for device authorizations).
const (
	DefaultRegistrationBurst = 20
	DefaultRegistrationEvery = 3 * time.Minute
	DefaultDeviceBurst       = 30
	DefaultDeviceEvery       = 10 * time.Second
)

// New returns a Server over the given store. It sweeps expired records once
// before returning.
func New(o Options) (*Server, error) {
	if o.Store == nil {
		return nil, errors.New("oauth: Options.Store is required")
	}
	if o.Clock == nil {
		o.Clock = clock.System{}
	}
	if o.RegistrationBurst <= 0 {
		o.RegistrationBurst = DefaultRegistrationBurst
	}
	if o.RegistrationEvery <= 0 {
		o.RegistrationEvery = DefaultRegistrationEvery
	}
	if o.DeviceBurst <= 0 {
		o.DeviceBurst = DefaultDeviceBurst
	}
	if o.DeviceEvery <= 0 {
		o.DeviceEvery = DefaultDeviceEvery
	}
	if o.TokenBurst <= 0 {
		o.TokenBurst = 60
	}
	if o.TokenEvery <= 0 {
		o.TokenEvery = 500 * time.Millisecond
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		store:  o.Store,
		clock:  o.Clock,
		base:   o.BaseURL,
		secret: o.Store.Identity().Secret,
		log:    o.Logger,

		clients: o.ClientAddr,

		registrations:  newLimiter(o.RegistrationBurst, o.RegistrationEvery),
		deviceByPeer:   newLimiter(o.DeviceBurst, o.DeviceEvery),
		deviceByClient: newLimiter(max(o.DeviceBurst/3, 1), 3*o.DeviceEvery),
		tokens:         newLimiter(o.TokenBurst, o.TokenEvery),
		wrongTries:     newLimiter(wrongTryBurst, wrongTryEvery),
		polls:          newPolls(),

		failedSignInLog: newLogLimit(failedSignInLogBurst, failedSignInLogEvery),
		cimd:            newCIMDFetcher(),
	}
	s.maybeSweep(s.clock.Now())
	return s, nil
}

// Register mounts every OAuth route and metadata document on mux.
func (s *Server) Register(mux *http.ServeMux) {
	mux.HandleFunc("POST /oauth/register", s.handleRegister)
	mux.HandleFunc("POST /oauth/device_authorization", s.handleDeviceAuthorization)
	mux.HandleFunc("POST /oauth/login", s.handleLogin)
	mux.HandleFunc("GET /oauth/device", s.handleDevicePage)
	mux.HandleFunc("POST /oauth/device", s.handleDeviceDecision)
	mux.HandleFunc("GET /oauth/authorize", s.handleAuthorizePage)
	mux.HandleFunc("POST /oauth/authorize", s.handleAuthorizeDecision)
	mux.HandleFunc("POST /oauth/token", s.handleToken)
	mux.HandleFunc("POST /oauth/revoke", s.handleRevoke)
	mux.HandleFunc("GET /.well-known/oauth-protected-resource", s.handleProtectedResource)
	// RFC 9728 section 3.1 inserts the resource's path after the well-known
	// name; clients that follow it for {base}/mcp ask here.
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", s.handleProtectedResource)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.handleAuthorizationServer)
}
