package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/registrations"
	"github.com/conform-mcp/conform/harness/wire"
)

// clientBody is the registration the suite sends for a client it means to use.
var clientBody = oauthclient.DeviceRegistration("conform")

// sevenDays is the lifetime of a registration never used in a completed
// authorization (source sections 3 and 8).
const sevenDays = 7 * 24 * time.Hour

// clientCache is the client the suite registers once per run and keeps, as
// source 7.3 asks of every client ("A client registers once and keeps its
// client_id"). It is shared by every scenario of a run.
type clientCache struct {
	// registering is held while the run's client is looked up or
	// registered, so that scenarios running at once register it once.
	registering sync.Mutex
	mu          sync.Mutex
	clientID    string
	// aged is how much host time has passed since the cached client was
	// registered; at seven days an unused registration is gone (source 3).
	aged time.Duration
	// authorized is true once the cached client completed an authorization,
	// which keeps its registration beyond seven days.
	authorized bool
	// recheck is true once seven days passed for an authorized cached
	// client: source 3 keeps it, but a host that removed it all the same
	// fails TIME-2 alone, not every scenario that merely uses a registered
	// client, so the host is asked whether it still knows it before use.
	recheck bool
	// deviceThrottled is true once a device authorization for the cached
	// client was throttled in the run: a limit per client (RFC 8628
	// section 5.2), which a client kept across runs may reach, and which
	// OAUTH-7 cannot then tell from a lockout by the registration throttle.
	deviceThrottled bool
	// successes counts registrations the host accepted from this address in
	// the run, the kept client's from an earlier run among them; the limit
	// probe needs at least one to tell a throttle from a refusal of the
	// request itself.
	successes int
}

func (c *clientCache) get() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.clientID
}

// usable returns the cached client and whether the host must be asked
// whether it still knows it (recheck).
func (c *clientCache) usable() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.clientID, c.recheck
}

// throttledDevice records that the host throttled a device authorization
// for clientID, when it is the cached client.
func (c *clientCache) throttledDevice(clientID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clientID == clientID {
		c.deviceThrottled = true
	}
}

// deviceThrottledBefore says whether a device authorization for the
// cached client was throttled in the run.
func (c *clientCache) deviceThrottledBefore() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deviceThrottled
}

// known records that the host still knows the cached client.
func (c *clientCache) known() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recheck = false
}

func (c *clientCache) keep(clientID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clientID, c.aged, c.authorized, c.recheck, c.deviceThrottled = clientID, 0, false, false, false
}

func (c *clientCache) accepted() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.successes++
}

func (c *clientCache) acceptedAny() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.successes > 0
}

func (c *clientCache) completed(clientID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clientID == clientID {
		c.authorized = true
	}
}

// age lets d of host time pass for the cached client and forgets it once an
// unused registration would have been removed, so the next scenario registers
// again as source section 3 says a client must.
func (c *clientCache) age(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.aged += d
	switch {
	case c.aged < sevenDays:
	case c.authorized:
		c.recheck = true
	default:
		c.clientID = ""
	}
}

// oauthFlow is one scenario's progress through registration and the device
// grant.
type oauthFlow struct {
	// clientID is the client the scenario uses (the cached one or a new one).
	clientID string
	// deviceCode and userCode come from the last device authorization.
	deviceCode, userCode string
	// issued is the access token of the last successful token response.
	issued string
	// probe is what the registration-limit probe saw.
	probe *limitProbe
}

// secrets are the flow's values that must never appear in a report.
func (f *oauthFlow) secrets() []string { return []string{f.deviceCode, f.issued} }

// registerAuthorizationFlow binds the steps that drive the authorization
// endpoints (source sections 2, 3, 4 and 7.3).
func (st *sourceState) registerAuthorizationFlow(sc stepContext) {
	// Registration (source 2, 4 rule 1, 7.3).
	sc.Step(`^a (registered|newly registered) client$`, func(ctx context.Context, which string) error {
		if which == "registered" {
			return st.registeredClient(ctx)
		}
		return st.newlyRegisteredClient(ctx)
	})
	sc.Step(`^a client registers (?:with redirect_uris (\[.*\])|without redirect_uris)$`, func(ctx context.Context, list string) error {
		if list == "" {
			return st.registerWithoutURIs(ctx)
		}
		return st.registerWithURIs(ctx, list)
	})
	sc.Step(`^the registration succeeds with a client_id$`, st.registrationSucceeds)

	// The device grant (RFC 8628; source 2, 3, 5.8).
	sc.Step(`^a device authorization for the registered client$`, st.deviceAuthorization)
	sc.Step(`^the client asks for a device authorization$`, st.askDeviceAuthorization)
	sc.Step(`^the device authorization (succeeds|is refused)$`, func(which string) error {
		if which == "succeeds" {
			return st.deviceAuthorizationSucceeds()
		}
		return st.deviceAuthorizationRefused()
	})
	sc.Step(`^the sign-in is approved$`, st.approve)
	sc.Step(`^the client (?:polls the token endpoint|exchanges the device code "([^"]*)"|requests a token with grant_type "([^"]*)")$`, func(ctx context.Context, code, grant string) error {
		switch {
		case code != "":
			return st.exchangeDeviceCode(ctx, code)
		case grant != "":
			return st.requestGrant(ctx, grant)
		}
		return st.poll(ctx)
	})
	sc.Step(`^the token response carries an access_token and neither expires_in nor refresh_token$`, st.tokenResponse)
	st.credentials["the credential just issued"] = noContext(st.withIssued)

	// How the host answers (source 7.3: HTTP 400, RFC 6749 style body).
	sc.Step(`^the OAuth reply is HTTP (\d+) with error "([^"]*)" and (?:description "([^"]*)"|a description beginning "([^"]*)"|a description naming (.+))$`, st.oauthErrorIs)
	sc.Step(`^the OAuth error is not "([^"]*)"$`, st.oauthErrorIsNot)
	sc.Step(`^the device code is still pending: authorization_pending or slow_down, or a credential$`, st.stillPending)
	sc.Step(`^the OAuth reply is served as JSON$`, st.oauthServedAsJSON)
}

// oauthReply records an OAuth reply; a transport failure is the host's (it
// did not answer).
func (st *sourceState) oauthReply(r *oauthclient.Reply, err error, what string) error {
	if err != nil {
		return st.depart(what, "an HTTP response", err.Error())
	}
	st.oauth = r
	st.hearOAuth(r)
	return nil
}

func (st *sourceState) needOAuth() error {
	if st.oauth == nil {
		return fmt.Errorf("no OAuth reply yet: the scenario must send something before judging a reply")
	}
	return nil
}

// register sends one registration; a throttled answer stops the scenario as
// not run (see skipThrottled).
func (st *sourceState) register(ctx context.Context, body any) error {
	r, err := st.obeyRetryAfter(ctx, "registration", func() (*oauthclient.Reply, error) { return st.OAuth.Register(ctx, body) })
	if err := st.oauthReply(r, err, "registration ("+st.Target.Profile.OAuth.Register+")"); err != nil {
		return err
	}
	if r.Throttled() {
		return st.skipThrottled(r, "registration", "")
	}
	if id, ok := r.String("client_id"); ok && r.Status/100 == 2 && id != "" {
		st.clients.accepted()
	}
	return nil
}

// registeredClient reuses the client the suite registered earlier in the
// run, else the one an earlier run kept, else registers one and keeps it
// for the run and the runs after it (source 7.3: a client registers once
// and keeps its client_id).
func (st *sourceState) registeredClient(ctx context.Context) error {
	st.clients.registering.Lock()
	defer st.clients.registering.Unlock()
	if id, recheck := st.clients.usable(); id != "" {
		if !recheck || st.stillKnown(ctx, id) {
			st.clients.known()
			st.flow.clientID = id
			return nil
		}
	} else if id := st.keptClient(ctx); id != "" {
		st.clients.keep(id)
		st.flow.clientID = id
		return nil
	}
	if err := st.newlyRegisteredClient(ctx); err != nil {
		return err
	}
	st.clients.keep(st.flow.clientID)
	st.Target.Clients.Keep(st.keptKey(), registrations.Client{ID: st.flow.clientID})
	return nil
}

// keptKey names the scenarios' client among the kept ones: registered with
// clientBody at the profile's registration endpoint.
func (st *sourceState) keptKey() registrations.Key {
	return registrations.Key{Server: st.OAuth.RegistrationEndpoint(), RedirectURI: oauthclient.DeviceRedirectURI, Use: registrations.DeviceScenarios}
}

// keptClient returns the client an earlier run registered for the
// scenarios and kept, once the host shows it still knows it (stillKnown).
// Anything else returns "", and the caller registers anew, so that a kept
// client never becomes a verdict; one the host refuses outright is
// forgotten (source 3: an unused registration is removed after seven days,
// and the client must register again). The kept client's registration,
// accepted by the host with the very body the limit probe sends, counts as
// an accepted one (clientCache.successes).
func (st *sourceState) keptClient(ctx context.Context) string {
	key := st.keptKey()
	c, confirmed, ok := st.Target.Clients.Get(key)
	if !ok {
		return ""
	}
	if !confirmed {
		if !st.stillKnown(ctx, c.ID) {
			return ""
		}
		st.Target.Clients.Confirm(key, c.ID)
	}
	st.clients.accepted()
	return c.ID
}

// stillKnown says whether the host still knows a client registered
// before: a device authorization for it succeeds (RFC 8628 section 3.2).
// A plain refusal forgets it among the kept clients too; any other answer
// (a throttle, a server error) leaves it kept for a later run.
func (st *sourceState) stillKnown(ctx context.Context, id string) bool {
	r, err := st.OAuth.DeviceAuthorize(ctx, id, nil)
	if err != nil {
		return false
	}
	if _, ok := r.String("device_code"); r.Status/100 == 2 && ok {
		return true
	}
	if r.Status/100 == 4 && !r.Throttled() {
		st.Target.Clients.Forget(st.keptKey(), id)
	}
	return false
}

func (st *sourceState) newlyRegisteredClient(ctx context.Context) error {
	if err := st.register(ctx, clientBody); err != nil {
		return err
	}
	return st.registrationSucceeds()
}

func (st *sourceState) registerWithURIs(ctx context.Context, list string) error {
	list, err := st.expand(list)
	if err != nil {
		return err
	}
	var uris []string
	if err := json.Unmarshal([]byte(list), &uris); err != nil {
		return fmt.Errorf("redirect_uris in the feature are not a JSON array of strings: %w", err)
	}
	return st.register(ctx, map[string]any{"client_name": "conform", "redirect_uris": uris})
}

func (st *sourceState) registerWithoutURIs(ctx context.Context) error {
	return st.register(ctx, map[string]any{"client_name": "conform"})
}

// registrationSucceeds checks source section 4: a successful registration
// returns a client_id. The status is not shown, so any 2xx counts.
func (st *sourceState) registrationSucceeds() error {
	if err := st.needOAuth(); err != nil {
		return err
	}
	r := st.oauth
	id, ok := r.String("client_id")
	if r.Status/100 != 2 || !ok || id == "" {
		return st.depart("registration", "a 2xx answer with a client_id (source 4)", describeOAuth(r), r.Exchange)
	}
	st.flow.clientID = id
	st.vars["client_id"] = id
	return nil
}

func (st *sourceState) needClient() error {
	if st.flow.clientID == "" {
		return fmt.Errorf("no client yet: the scenario must register one first")
	}
	return nil
}

// askDeviceAuthorization starts a device authorization (RFC 8628 section
// 3.1) at the profile's endpoint; the source does not show it (section 4 gaps).
func (st *sourceState) askDeviceAuthorization(ctx context.Context) error {
	if err := st.needClient(); err != nil {
		return err
	}
	r, err := st.OAuth.DeviceAuthorize(ctx, st.flow.clientID, nil)
	return st.oauthReply(r, err, "device authorization ("+st.Target.Profile.OAuth.DeviceAuthorization+")")
}

func (st *sourceState) deviceAuthorization(ctx context.Context) error {
	if err := st.askDeviceAuthorization(ctx); err != nil {
		return err
	}
	return st.deviceAuthorizationSucceeds()
}

// approve stands in for the person at the verification URI (RFC 8628
// section 3.3); the consent page is not in the source.
func (st *sourceState) approve(ctx context.Context) error {
	if st.Target.Approve == nil {
		return st.skip(st.Target.Lacks("approval"))
	}
	if st.flow.userCode == "" {
		return fmt.Errorf("no user code yet: the scenario must start a device authorization first")
	}
	if err := st.Target.Approve(ctx, st.flow.userCode); err != nil {
		return fmt.Errorf("approve the sign-in: %w", err)
	}
	return nil
}

// token sends a token request for the scenario's client. A throttled one
// is sent once more after a short Retry-After; one still throttled leaves
// the scenario not run, as no rule these requests check is about the
// token endpoint's rate limit (RFC 6585 section 4).
func (st *sourceState) token(ctx context.Context, form url.Values) error {
	if st.flow.clientID != "" {
		form.Set("client_id", st.flow.clientID)
	}
	r, err := st.obeyRetryAfter(ctx, "token request", func() (*oauthclient.Reply, error) { return st.OAuth.Token(ctx, form) })
	if err := st.oauthReply(r, err, "token request ("+st.Target.Profile.OAuth.Token+")"); err != nil {
		return err
	}
	if r.Throttled() {
		return st.skipThrottled(r, "token request", "")
	}
	return nil
}

// poll asks for the device grant's token once (RFC 8628 section 3.4; the
// source's "device_code" grant is this grant type).
func (st *sourceState) poll(ctx context.Context) error {
	if st.flow.deviceCode == "" {
		return fmt.Errorf("no device code yet: the scenario must start a device authorization first")
	}
	return st.deviceToken(ctx, st.flow.deviceCode)
}

func (st *sourceState) exchangeDeviceCode(ctx context.Context, code string) error {
	code, err := st.expand(code)
	if err != nil {
		return err
	}
	return st.deviceToken(ctx, code)
}

// deviceToken sends a device access token request by the grant name the
// host takes (oauthclient.DeviceGrant: the source says device_code, RFC 8628
// the URN) and says in the result which name that was.
func (st *sourceState) deviceToken(ctx context.Context, code string) error {
	form := url.Values{"device_code": {code}}
	if st.flow.clientID != "" {
		form.Set("client_id", st.flow.clientID)
	}
	r, err := st.Grant.Token(ctx, form)
	if name, how := st.Grant.Name(); name != "" {
		st.Notes.Observe(st.pickleID, fmt.Sprintf("the host took the device grant as %q (%s)", name, how))
	}
	return st.oauthReply(r, err, "token request ("+st.Target.Profile.OAuth.Token+")")
}

func (st *sourceState) requestGrant(ctx context.Context, grant string) error {
	grant, err := st.expand(grant)
	if err != nil {
		return err
	}
	return st.token(ctx, url.Values{"grant_type": {grant}})
}

// tokenResponse checks source sections 2 and 5.8: the device grant issues a
// credential with no expiry and no refresh token.
func (st *sourceState) tokenResponse() error {
	if err := st.needOAuth(); err != nil {
		return err
	}
	r := st.oauth
	tok, ok := r.String("access_token")
	switch {
	case r.Status != http.StatusOK || !ok || tok == "":
		return st.depart("token response", "HTTP 200 with an access_token (RFC 6749 section 5.1)", describeOAuth(r), r.Exchange)
	case r.JSON["expires_in"] != nil:
		st.flow.issued = tok
		return st.depart("token response", "no expires_in: the credential has no expiry (source 2, 3)",
			"expires_in "+wire.JSONText(r.JSON["expires_in"]), r.Exchange)
	case r.JSON["refresh_token"] != nil:
		st.flow.issued = tok
		return st.depart("token response", "no refresh_token: the device grant returns none (source 2, 5.8)",
			"a refresh_token", r.Exchange)
	}
	st.flow.issued = tok
	st.clients.completed(st.flow.clientID)
	return nil
}

func (st *sourceState) withIssued() error {
	if st.flow.issued == "" {
		return fmt.Errorf("no credential issued yet in this scenario")
	}
	st.auth = "Bearer " + st.flow.issued
	return nil
}

// oauthError checks the common shape of every authorization-flow failure
// (source 7.3, RFC 6749 section 5.2) and returns the description.
func (st *sourceState) oauthError(status int, code string) (string, error) {
	if err := st.needOAuth(); err != nil {
		return "", err
	}
	r := st.oauth
	want := fmt.Sprintf("HTTP %d with error %q", status, code)
	if r.Status != status {
		return "", st.depart("HTTP status", want, describeOAuth(r), r.Exchange)
	}
	if r.JSON == nil {
		return "", st.depart("OAuth error body", "a JSON object with error and error_description (source 2, 7.3)", describeOAuth(r), r.Exchange)
	}
	got, ok := r.String("error")
	if !ok || got != code {
		return "", st.depart("OAuth error", fmt.Sprintf("%q", code), describeOAuth(r), r.Exchange)
	}
	desc, ok := r.String("error_description")
	if !ok {
		return "", st.depart("OAuth error_description", "a string (source 2)", describeOAuth(r), r.Exchange)
	}
	return desc, nil
}

// oauthErrorIs judges an OAuth error answer (source 7.3: the status, the
// RFC 6749 error code, and its description: exact, by its beginning, or by
// what it names).
func (st *sourceState) oauthErrorIs(status int, code, exact, prefix, names string) error {
	switch {
	case prefix != "":
		return st.oauthErrorPrefix(status, code, prefix)
	case names != "":
		return st.oauthErrorNaming(status, code, names)
	}
	return st.oauthErrorExact(status, code, exact)
}

func (st *sourceState) oauthErrorExact(status int, code, want string) error {
	desc, err := st.oauthError(status, code)
	if err != nil {
		return err
	}
	if desc != want {
		return st.depart("OAuth error_description", fmt.Sprintf("%q", want), fmt.Sprintf("%q", desc), st.oauth.Exchange)
	}
	return nil
}

func (st *sourceState) oauthErrorPrefix(status int, code, prefix string) error {
	desc, err := st.oauthError(status, code)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(desc, prefix) {
		return st.depart("OAuth error_description", fmt.Sprintf("beginning with %q", prefix), fmt.Sprintf("%q", desc), st.oauth.Exchange)
	}
	return nil
}

var quoted = regexp.MustCompile(`"([^"]*)"`)

// oauthErrorNaming checks that a description names each quoted word, without
// demanding the reference host's sentence (source 7.3 says only what it says).
func (st *sourceState) oauthErrorNaming(status int, code, names string) error {
	desc, err := st.oauthError(status, code)
	if err != nil {
		return err
	}
	words := quoted.FindAllStringSubmatch(names, -1)
	if len(words) == 0 {
		return fmt.Errorf("no quoted names in %q", names)
	}
	for _, w := range words {
		if !strings.Contains(desc, w[1]) {
			return st.depart("OAuth error_description", "a description naming "+names, fmt.Sprintf("%q (no %q)", desc, w[1]), st.oauth.Exchange)
		}
	}
	return nil
}

// oauthErrorIsNot accepts a token or any OAuth error other than code; a
// server failure or a body that is no OAuth answer is not accepted.
func (st *sourceState) oauthErrorIsNot(code string) error {
	if err := st.needOAuth(); err != nil {
		return err
	}
	r := st.oauth
	got, _ := r.String("error")
	switch {
	case r.Status >= 500 || r.JSON == nil:
		return st.depart("token endpoint answer", fmt.Sprintf("a token or an OAuth error other than %q", code), describeOAuth(r), r.Exchange)
	case got == code:
		return st.depart("OAuth error", fmt.Sprintf("anything but %q", code), describeOAuth(r), r.Exchange)
	}
	return nil
}

// stillPending checks a device code inside its five-minute window (source
// 3): not yet approved, the token endpoint answers authorization_pending or
// slow_down (RFC 8628 section 3.5), or a credential once approved; any other
// answer, expired_token included, ends the window early.
func (st *sourceState) stillPending() error {
	if err := st.needOAuth(); err != nil {
		return err
	}
	r := st.oauth
	code, _ := r.String("error")
	tok, _ := r.String("access_token")
	switch {
	case r.Status == http.StatusOK && tok != "":
		return nil
	case r.Status == http.StatusBadRequest && (code == "authorization_pending" || code == "slow_down"):
		return nil
	}
	return st.depart("token endpoint inside the five-minute window (source 3)",
		"HTTP 400 with authorization_pending or slow_down (RFC 8628 section 3.5), or a credential", describeOAuth(r), r.Exchange)
}

// oauthServedAsJSON checks that an error body is labelled as the JSON it is
// (RFC 6749 section 5.2: "application/json").
func (st *sourceState) oauthServedAsJSON() error {
	if err := st.needOAuth(); err != nil {
		return err
	}
	ct := st.oauth.Header.Get("Content-Type")
	if !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		return st.depart("Content-Type header", `beginning with "application/json"`, fmt.Sprintf("%q", ct), st.oauth.Exchange)
	}
	return nil
}
