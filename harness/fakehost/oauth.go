package fakehost

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// OAuthBreak names one departure of the fake's authorization surface. Each
// breaks a single requirement (named in its comment) and nothing else.
type OAuthBreak string

// The departures on the OAuth side.
const (
	// MissingURIsWrongCode answers a registration without redirect_uris
	// with invalid_client_metadata (OAUTH-2).
	MissingURIsWrongCode OAuthBreak = "missing-uris-wrong-code"
	// MissingURIsWrongDescription answers it with another description (OAUTH-2).
	MissingURIsWrongDescription OAuthBreak = "missing-uris-wrong-description"
	// AcceptsFTP registers ftp: redirect URIs (OAUTH-3, EP-6).
	AcceptsFTP OAuthBreak = "accepts-ftp"
	// RejectsIPv6Loopback refuses http://[::1] redirect URIs (EP-6).
	RejectsIPv6Loopback OAuthBreak = "rejects-ipv6-loopback"
	// UnknownDeviceCode401 answers an unknown device_code with HTTP 401 (OAUTH-1, OAUTH-4).
	UnknownDeviceCode401 OAuthBreak = "unknown-device-code-401"
	// UnknownDeviceCodeDescription answers it with another description (OAUTH-4).
	UnknownDeviceCodeDescription OAuthBreak = "unknown-device-code-description"
	// WindowTooLong keeps device codes for ten minutes (TIME-1).
	WindowTooLong OAuthBreak = "window-too-long"
	// WindowTooShort keeps device codes for three minutes (TIME-1).
	WindowTooShort OAuthBreak = "window-too-short"
	// UnsupportedGrantInvalidGrant answers other grant types with invalid_grant (OAUTH-5).
	UnsupportedGrantInvalidGrant OAuthBreak = "unsupported-grant-invalid-grant"
	// ErrorsAsHTML answers every authorization-flow failure with an HTML
	// page and HTTP 500, as a crashing framework would (OAUTH-1).
	ErrorsAsHTML OAuthBreak = "errors-as-html"
	// ErrorsAsText serves the right error bodies as text/plain (OAUTH-8, a SHOULD).
	ErrorsAsText OAuthBreak = "errors-as-text"
	// RefreshTokenIssued adds a refresh_token to the device grant's answer (RES-2).
	RefreshTokenIssued OAuthBreak = "refresh-token-issued"
	// ExpiresInIssued adds expires_in to the device grant's answer (RES-2).
	ExpiresInIssued OAuthBreak = "expires-in-issued"
	// NeverThrottled accepts every registration (OAUTH-6).
	NeverThrottled OAuthBreak = "never-throttled"
	// UnusedRegistrationsKept never removes unused registrations (TIME-2).
	UnusedRegistrationsKept OAuthBreak = "unused-registrations-kept"
	// UsedRegistrationsRemoved removes every registration after seven days,
	// used or not (TIME-2).
	UsedRegistrationsRemoved OAuthBreak = "used-registrations-removed"
	// MetadataMissing answers /.well-known/oauth-protected-resource with 404
	// (SVC-7, EP-4).
	MetadataMissing OAuthBreak = "metadata-missing"
	// KnownGrantsUnsupported answers the authorization_code and
	// refresh_token grants with unsupported_grant_type (EP-3).
	KnownGrantsUnsupported OAuthBreak = "known-grants-unsupported"
	// CredentialExpires makes device-grant credentials stop working a day
	// after they were issued (TIME-3).
	CredentialExpires OAuthBreak = "credential-expires"
	// LifetimeTooShort removes unused registrations after six days (TIME-2).
	LifetimeTooShort OAuthBreak = "lifetime-too-short"
	// ThrottleLocksOutClients refuses device authorizations from an address
	// once it is throttled, even for clients registered before (OAUTH-7).
	ThrottleLocksOutClients OAuthBreak = "throttle-locks-out-clients"
	// RedirectDescriptionReworded refuses unsupported redirect URIs with a
	// description that does not begin as source 7.3 says (OAUTH-3).
	RedirectDescriptionReworded OAuthBreak = "redirect-description-reworded"
	// UnsupportedGrantVague refuses other grant types with a description
	// that names none of the supported ones (OAUTH-5).
	UnsupportedGrantVague OAuthBreak = "unsupported-grant-vague"
	// AcceptsHTTPOffLoopback registers http redirect URIs off the loopback (EP-6).
	AcceptsHTTPOffLoopback OAuthBreak = "accepts-http-off-loopback"
	// AcceptsJavascript registers javascript: redirect URIs (EP-6).
	AcceptsJavascript OAuthBreak = "accepts-javascript"
	// AcceptsRelative registers relative redirect URIs (EP-6).
	AcceptsRelative OAuthBreak = "accepts-relative"
	// RejectsHTTPS refuses https redirect URIs (EP-6).
	RejectsHTTPS OAuthBreak = "rejects-https"
	// RejectsIPv4Loopback refuses http://127.0.0.1 redirect URIs (EP-6).
	RejectsIPv4Loopback OAuthBreak = "rejects-ipv4-loopback"
	// RejectsPrivateUse refuses private-use scheme redirect URIs (EP-6).
	RejectsPrivateUse OAuthBreak = "rejects-private-use"
	// ExpiredTokenEarly answers expired_token to a pending device code after
	// four minutes, inside the five-minute window (TIME-1).
	ExpiredTokenEarly OAuthBreak = "expired-token-early"
	// FirstRedirectURIOnly judges only the first entry of redirect_uris
	// (OAUTH-3, EP-6).
	FirstRedirectURIOnly OAuthBreak = "first-redirect-uri-only"
	// PendingCodeInvalid answers a device code nobody approved yet as
	// invalid_grant, as if its window had ended (TIME-1).
	PendingCodeInvalid OAuthBreak = "pending-code-invalid"
)

// OAuthBreaks returns every OAuth-side departure, in the order declared.
func OAuthBreaks() []OAuthBreak {
	return []OAuthBreak{
		MissingURIsWrongCode, MissingURIsWrongDescription, AcceptsFTP, RejectsIPv6Loopback,
		UnknownDeviceCode401, UnknownDeviceCodeDescription, WindowTooLong, WindowTooShort,
		UnsupportedGrantInvalidGrant, ErrorsAsHTML, ErrorsAsText, RefreshTokenIssued,
		ExpiresInIssued, NeverThrottled, UnusedRegistrationsKept, UsedRegistrationsRemoved,
		MetadataMissing, KnownGrantsUnsupported, CredentialExpires, LifetimeTooShort, ThrottleLocksOutClients,
		RedirectDescriptionReworded, UnsupportedGrantVague, AcceptsHTTPOffLoopback, AcceptsJavascript,
		AcceptsRelative, RejectsHTTPS, RejectsIPv4Loopback, RejectsPrivateUse, ExpiredTokenEarly,
		FirstRedirectURIOnly, PendingCodeInvalid,
	}
}

// Time rules of source sections 3 and 8.
const (
	deviceWindow     = 5 * time.Minute
	unusedLifetime   = 7 * 24 * time.Hour
	throttleWindow   = time.Hour
	defaultRegLimit  = 25
	defaultInterval  = 5
	deviceGrantURN   = "urn:ietf:params:oauth:grant-type:device_code"
	unsupportedGrant = "Supported grant types: refresh_token, authorization_code and device_code"
	badRedirectURI   = "redirect_uris must be https, RFC 8252 loopback http, or a private-use scheme"
)

// ManualClock is a clock that moves only when told; it satisfies the
// harness's target.Clock, so the suite steps across each window exactly.
type ManualClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewManualClock returns a clock standing at start.
func NewManualClock(start time.Time) *ManualClock { return &ManualClock{now: start} }

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// OAuthOptions configure the fake's authorization surface.
type OAuthOptions struct {
	// Host is the instance whose MCP side accepts the credentials the device
	// grant issues (Host.Issue). Required.
	Host *Host
	// Clock is the time source; the wall clock when nil.
	Clock interface{ Now() time.Time }
	// RegistrationLimit is how many registrations one address may make per
	// hour; 25 when 0.
	RegistrationLimit int
	// Interval is the device flow's polling interval in seconds (RFC 8628
	// section 3.2); 5 when 0.
	Interval int
	// Breaks are the departures to make.
	Breaks []OAuthBreak
	// Other makes the other choices where the source is silent: the device
	// grant only by RFC 8628's name, advertised in authorization server
	// metadata (RFC 8414), and a throttled registration answered 503 with
	// Retry-After. By default the device grant goes only by the source's
	// "device_code", with no metadata, and the throttle is a 429.
	Other bool
}

// OAuth is the fake's authorization surface: registration (RFC 7591),
// device authorization and token (RFC 8628, RFC 6749), and the protected
// resource metadata (RFC 9728). It is safe for concurrent use.
type OAuth struct {
	opts OAuthOptions

	mu      sync.Mutex
	clients map[string]*fakeClient
	devices map[string]*fakeDevice
	// registrations are the times each address registered, for the limit.
	registrations map[string][]time.Time
	seq           int
}

type fakeClient struct {
	created    time.Time
	authorized bool
}

type fakeDevice struct {
	clientID, userCode string
	issued             time.Time
	approved           bool
	lastPoll           time.Time
	interval           time.Duration
}

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

// NewOAuth returns the fake's authorization surface; mount it with Mount.
func NewOAuth(opts OAuthOptions) *OAuth {
	if opts.Clock == nil {
		opts.Clock = wallClock{}
	}
	if opts.RegistrationLimit <= 0 {
		opts.RegistrationLimit = defaultRegLimit
	}
	if opts.Interval <= 0 {
		opts.Interval = defaultInterval
	}
	return &OAuth{
		opts:          opts,
		clients:       map[string]*fakeClient{},
		devices:       map[string]*fakeDevice{},
		registrations: map[string][]time.Time{},
	}
}

// Mount serves the authorization endpoints at the default profile's paths on
// mux (a Host's Mux).
func (o *OAuth) Mount(mux *http.ServeMux) {
	mux.HandleFunc("POST /oauth/register", o.register)
	mux.HandleFunc("POST /oauth/device_authorization", o.deviceAuthorization)
	mux.HandleFunc("POST /oauth/token", o.token)
	mux.HandleFunc("GET /.well-known/oauth-protected-resource", o.resourceMetadata)
	if o.opts.Other {
		mux.HandleFunc("GET /.well-known/oauth-authorization-server", o.serverMetadata)
	}
}

// serverMetadata is the Other host's RFC 8414 metadata; grant_types_supported
// names the device grant the only way this host takes it.
func (o *OAuth) serverMetadata(w http.ResponseWriter, r *http.Request) {
	base := baseURL(r)
	writeJSONAnswer(w, http.StatusOK, map[string]any{
		"issuer":                        base,
		"registration_endpoint":         base + "/oauth/register",
		"token_endpoint":                base + "/oauth/token",
		"device_authorization_endpoint": base + "/oauth/device_authorization",
		"grant_types_supported":         []string{deviceGrantURN, "authorization_code", "refresh_token"},
	})
}

func (o *OAuth) broken(b OAuthBreak) bool { return slices.Contains(o.opts.Breaks, b) }

// Approve records the person's consent for a user code, standing in for the
// verification page; it has the harness's target.Approver signature.
func (o *OAuth) Approve(_ context.Context, userCode string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, d := range o.devices {
		if d.userCode == userCode {
			d.approved = true
			return nil
		}
	}
	return fmt.Errorf("no pending device authorization with user code %q", userCode)
}

// fail writes an authorization-flow failure (source 7.3: HTTP 400, an
// RFC 6749 section 5.2 body), or the break's departure from it.
func (o *OAuth) fail(w http.ResponseWriter, status int, code, description string) {
	switch {
	case o.broken(ErrorsAsHTML):
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "<html><body><h1>Error</h1><p>%s</p></body></html>\n", code)
		return
	case o.broken(ErrorsAsText):
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	default:
		w.Header().Set("Content-Type", "application/json")
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": description})
}

func writeJSONAnswer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// sweep removes registrations never used in a completed authorization once
// seven days have passed (source 3). Called with o.mu held.
func (o *OAuth) sweep(now time.Time) {
	if o.broken(UnusedRegistrationsKept) {
		return
	}
	lifetime := unusedLifetime
	if o.broken(LifetimeTooShort) {
		lifetime = 6 * 24 * time.Hour
	}
	for id, c := range o.clients {
		if (!c.authorized || o.broken(UsedRegistrationsRemoved)) && now.Sub(c.created) > lifetime {
			delete(o.clients, id)
		}
	}
}

func (o *OAuth) nextID(prefix string) string {
	o.seq++
	return fmt.Sprintf("%s-%d-%s", prefix, o.seq, token()[len("fake-"):])
}

// register is POST /oauth/register (source 4, 7.3; RFC 7591 section 3).
func (o *OAuth) register(w http.ResponseWriter, r *http.Request) {
	var body struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil || json.Unmarshal(raw, &body) != nil {
		o.fail(w, http.StatusBadRequest, "invalid_client_metadata", "The body is not a JSON object of client metadata")
		return
	}
	if len(body.RedirectURIs) == 0 {
		code, desc := "invalid_redirect_uri", "Missing redirect_uris"
		if o.broken(MissingURIsWrongCode) {
			code = "invalid_client_metadata"
		}
		if o.broken(MissingURIsWrongDescription) {
			desc = "redirect_uris is required"
		}
		o.fail(w, http.StatusBadRequest, code, desc)
		return
	}
	judged := body.RedirectURIs
	if o.broken(FirstRedirectURIOnly) && len(judged) > 1 {
		judged = judged[:1]
	}
	for _, u := range judged {
		if !o.redirectAllowed(u) {
			desc := badRedirectURI + " (refused: " + u + ")"
			if o.broken(RedirectDescriptionReworded) {
				desc = "Redirect URIs must use https or a loopback address"
			}
			o.fail(w, http.StatusBadRequest, "invalid_redirect_uri", desc)
			return
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.opts.Clock.Now()
	o.sweep(now)
	addr := sourceAddress(r)
	if !o.broken(NeverThrottled) {
		recent := o.recent(addr, now)
		if len(recent) >= o.opts.RegistrationLimit {
			w.Header().Set("Retry-After", strconv.Itoa(int((throttleWindow-now.Sub(recent[0])).Seconds())+1))
			// The throttled answer is not shown (source 8); RFC 6585
			// section 4, or the Other host's 503 (RFC 9110 section 15.6.4).
			status := http.StatusTooManyRequests
			if o.opts.Other {
				status = http.StatusServiceUnavailable
			}
			writeJSONAnswer(w, status, map[string]string{
				"error": "temporarily_unavailable", "error_description": "Registration limit reached for this address"})
			return
		}
		o.registrations[addr] = append(recent, now)
	}
	id := o.nextID("client")
	o.clients[id] = &fakeClient{created: now}
	writeJSONAnswer(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": body.RedirectURIs})
}

// recent keeps and returns the address's registrations within the throttle
// window. The caller holds o.mu.
func (o *OAuth) recent(addr string, now time.Time) []time.Time {
	recent := o.registrations[addr][:0]
	for _, t := range o.registrations[addr] {
		if now.Sub(t) < throttleWindow {
			recent = append(recent, t)
		}
	}
	o.registrations[addr] = recent
	return recent
}

// throttled reports whether the address has spent its registrations. The
// caller holds o.mu.
func (o *OAuth) throttled(addr string, now time.Time) bool {
	return len(o.recent(addr, now)) >= o.opts.RegistrationLimit
}

// redirectAllowed applies source section 4 rule 1: https, RFC 8252 section
// 7.3 loopback http, or an RFC 8252 section 7.1 private-use (reverse domain)
// scheme.
func (o *OAuth) redirectAllowed(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return o.broken(AcceptsRelative)
	}
	switch u.Scheme {
	case "https":
		return u.Host != "" && !o.broken(RejectsHTTPS)
	case "http":
		ip := net.ParseIP(u.Hostname())
		if ip == nil || !ip.IsLoopback() {
			return o.broken(AcceptsHTTPOffLoopback)
		}
		if ip.To4() != nil {
			return !o.broken(RejectsIPv4Loopback)
		}
		return !o.broken(RejectsIPv6Loopback)
	case "ftp":
		return o.broken(AcceptsFTP)
	case "javascript":
		return o.broken(AcceptsJavascript)
	}
	return strings.Contains(u.Scheme, ".") && !o.broken(RejectsPrivateUse)
}

func sourceAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// deviceAuthorization is POST /oauth/device_authorization (RFC 8628 section
// 3.1, 3.2); the source does not show it.
func (o *OAuth) deviceAuthorization(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		o.fail(w, http.StatusBadRequest, "invalid_request", "The body is not a form")
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.opts.Clock.Now()
	o.sweep(now)
	clientID := r.PostForm.Get("client_id")
	if o.broken(ThrottleLocksOutClients) && o.throttled(sourceAddress(r), now) {
		w.Header().Set("Retry-After", "3600")
		writeJSONAnswer(w, http.StatusTooManyRequests, map[string]string{
			"error": "temporarily_unavailable", "error_description": "This address is throttled"})
		return
	}
	if _, ok := o.clients[clientID]; !ok {
		o.fail(w, http.StatusUnauthorized, "invalid_client", "Unknown client; register again")
		return
	}
	code := o.nextID("device")
	user := fmt.Sprintf("FAKE-%04d", o.seq)
	o.devices[code] = &fakeDevice{clientID: clientID, userCode: user, issued: now, interval: time.Duration(o.opts.Interval) * time.Second}
	verify := baseURL(r) + "/device"
	writeJSONAnswer(w, http.StatusOK, map[string]any{
		"device_code":               code,
		"user_code":                 user,
		"verification_uri":          verify,
		"verification_uri_complete": verify + "?user_code=" + user,
		"expires_in":                int(deviceWindow.Seconds()),
		"interval":                  o.opts.Interval,
	})
}

// window is how long a device code is valid: five minutes (source 3).
func (o *OAuth) window() time.Duration {
	switch {
	case o.broken(WindowTooLong):
		return 10 * time.Minute
	case o.broken(WindowTooShort):
		return 3 * time.Minute
	}
	return deviceWindow
}

// token is POST /oauth/token (source 4, 7.3; RFC 6749 section 5, RFC 8628
// section 3.4 and 3.5).
func (o *OAuth) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		o.fail(w, http.StatusBadRequest, "invalid_request", "The body is not a form")
		return
	}
	switch grant := r.PostForm.Get("grant_type"); {
	case grant == deviceGrantURN && o.opts.Other, grant == "device_code" && !o.opts.Other:
		// The device grant's name: the source's, or RFC 8628's on the
		// Other host; each host takes only one.
		o.deviceToken(w, r)
	case grant == "authorization_code", grant == "refresh_token":
		if o.broken(KnownGrantsUnsupported) {
			o.fail(w, http.StatusBadRequest, "unsupported_grant_type", unsupportedGrant)
			return
		}
		o.knownGrant(w, grant)
	default:
		switch {
		case o.broken(UnsupportedGrantInvalidGrant):
			o.fail(w, http.StatusBadRequest, "invalid_grant", "Invalid grant")
		case o.broken(UnsupportedGrantVague):
			o.fail(w, http.StatusBadRequest, "unsupported_grant_type", "This grant type is not supported")
		default:
			o.fail(w, http.StatusBadRequest, "unsupported_grant_type", unsupportedGrant)
		}
	}
}

// knownGrant answers the grants source 4 names besides the device grant.
// They are supported, but this fake never issues a code or a refresh token,
// so whatever is presented is invalid_grant.
func (o *OAuth) knownGrant(w http.ResponseWriter, grant string) {
	switch grant {
	case "authorization_code":
		o.fail(w, http.StatusBadRequest, "invalid_grant", "Unknown authorization code")
	default:
		o.fail(w, http.StatusBadRequest, "invalid_grant", "Unknown refresh token")
	}
}

func (o *OAuth) deviceToken(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.opts.Clock.Now()
	d, ok := o.devices[r.PostForm.Get("device_code")]
	if !ok || now.Sub(d.issued) > o.window() || d.clientID != r.PostForm.Get("client_id") {
		status, desc := http.StatusBadRequest, "Invalid or expired device_code"
		if o.broken(UnknownDeviceCode401) {
			status = http.StatusUnauthorized
		}
		if o.broken(UnknownDeviceCodeDescription) {
			desc = "device_code not found"
		}
		o.fail(w, status, "invalid_grant", desc)
		return
	}
	if !d.approved && o.broken(ExpiredTokenEarly) && now.Sub(d.issued) >= 4*time.Minute {
		o.fail(w, http.StatusBadRequest, "expired_token", "The device code has expired")
		return
	}
	if !d.approved && o.broken(PendingCodeInvalid) {
		o.fail(w, http.StatusBadRequest, "invalid_grant", "Invalid or expired device_code")
		return
	}
	if !d.approved {
		// RFC 8628 section 3.5: polling faster than the interval is
		// slow_down, and the interval grows by 5 seconds.
		tooSoon := !d.lastPoll.IsZero() && now.Sub(d.lastPoll) < d.interval
		d.lastPoll = now
		if tooSoon {
			d.interval += 5 * time.Second
			o.fail(w, http.StatusBadRequest, "slow_down", "Polling faster than the interval")
			return
		}
		o.fail(w, http.StatusBadRequest, "authorization_pending", "The sign-in is not approved yet")
		return
	}
	delete(o.devices, r.PostForm.Get("device_code"))
	if c, ok := o.clients[d.clientID]; ok {
		c.authorized = true
	}
	var valid func() bool
	if o.broken(CredentialExpires) {
		valid = func() bool { return o.opts.Clock.Now().Sub(now) < 24*time.Hour }
	}
	answer := map[string]any{"access_token": o.opts.Host.Issue(valid), "token_type": "Bearer"}
	if o.broken(RefreshTokenIssued) {
		answer["refresh_token"] = o.nextID("refresh")
	}
	if o.broken(ExpiresInIssued) {
		answer["expires_in"] = 3600
	}
	writeJSONAnswer(w, http.StatusOK, answer)
}

// resourceMetadata is GET /.well-known/oauth-protected-resource (RFC 9728
// section 3.2); the source does not show the body.
func (o *OAuth) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	if o.broken(MetadataMissing) {
		http.NotFound(w, r)
		return
	}
	base := baseURL(r)
	writeJSONAnswer(w, http.StatusOK, map[string]any{
		"resource":              base + "/mcp",
		"authorization_servers": []string{base},
	})
}
