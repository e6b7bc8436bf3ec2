package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
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
	mu       sync.Mutex
	clientID string
	// aged is how much host time has passed since the cached client was
	// registered; at seven days an unused registration is gone (source 3).
	aged time.Duration
	// authorized is true once the cached client completed an authorization,
	// which keeps its registration beyond seven days.
	authorized bool
	// successes counts registrations the host accepted from this address in
	// the run; the limit probe needs at least one to tell a throttle from a
	// refusal of the request itself.
	successes int
}

func (c *clientCache) get() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.clientID
}

func (c *clientCache) keep(clientID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clientID, c.aged, c.authorized = clientID, 0, false
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
	if !c.authorized && c.aged >= sevenDays {
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

// limitProbe records the registration-limit probe (source 7.3 and 8).
type limitProbe struct {
	sent, accepted int
	limit          int
	refusal        *oauthclient.Reply
	last           *oauthclient.Reply
}

// registerOAuth binds the steps that drive the authorization endpoints
// (source sections 2, 3, 4, 7.3 and 8).
func (st *State) registerOAuth(sc stepContext) {
	st.vars["registration_limit"] = strconv.Itoa(st.Target.Profile.RegistrationLimit)

	// Registration (source 2, 4 rule 1, 7.3).
	sc.Step(`^a registered client$`, st.registeredClient)
	sc.Step(`^a newly registered client$`, st.newlyRegisteredClient)
	sc.Step(`^a client registers with redirect_uris (\[.*\])$`, st.registerWithURIs)
	sc.Step(`^a client registers with the body:$`, st.registerWithBody)
	sc.Step(`^a client registers without redirect_uris$`, st.registerWithoutURIs)
	sc.Step(`^the registration succeeds with a client_id$`, st.registrationSucceeds)

	// The device grant (RFC 8628; source 2, 3, 5.8).
	sc.Step(`^a device authorization for the registered client$`, st.deviceAuthorization)
	sc.Step(`^the client asks for a device authorization$`, st.askDeviceAuthorization)
	sc.Step(`^the device authorization succeeds$`, st.deviceAuthorizationSucceeds)
	sc.Step(`^the device authorization is refused$`, st.deviceAuthorizationRefused)
	sc.Step(`^the sign-in is approved$`, st.approve)
	sc.Step(`^the client polls the token endpoint$`, st.poll)
	sc.Step(`^the client exchanges the device code "([^"]*)"$`, st.exchangeDeviceCode)
	sc.Step(`^the client requests a token with grant_type "([^"]*)"$`, st.requestGrant)
	sc.Step(`^the token response carries an access_token and neither expires_in nor refresh_token$`, st.tokenResponse)
	sc.Step(`^a caller with the credential just issued$`, st.withIssued)

	// How the host answers (source 7.3: HTTP 400, RFC 6749 style body).
	sc.Step(`^the OAuth reply is HTTP (\d+) with error "([^"]*)" and description "([^"]*)"$`, st.oauthErrorExact)
	sc.Step(`^the OAuth reply is HTTP (\d+) with error "([^"]*)" and a description beginning "([^"]*)"$`, st.oauthErrorPrefix)
	sc.Step(`^the OAuth reply is HTTP (\d+) with error "([^"]*)" and a description naming (.+)$`, st.oauthErrorNaming)
	sc.Step(`^the OAuth error is not "([^"]*)"$`, st.oauthErrorIsNot)
	sc.Step(`^the device code is still pending: authorization_pending or slow_down, or a credential$`, st.stillPending)
	sc.Step(`^the OAuth reply is served as JSON$`, st.oauthServedAsJSON)

	// Discovery (source 1, 4, 7.2).
	sc.Step(`^a client fetches (\S+)$`, st.fetchDocument)
	sc.Step(`^a client fetches the resource_metadata named by the challenge$`, st.fetchChallengeMetadata)
	sc.Step(`^the HTTP status of the document is (\d+)$`, st.documentStatus)

	// Instance binding seen from both instances (source 5.2).
	sc.Step(`^the caller sends "([^"]*)" to the peer$`, st.sendToPeer)

	// The per-address registration limit (source 7.3 and 8).
	sc.Step(`^a client registers repeatedly, at most (\S+) times, until refused$`, st.probeLimit)
	sc.Step(`^a registration was refused$`, st.registrationRefused)
	sc.Step(`^the registered client still works$`, st.registeredClientWorks)
}

// throttled says whether a reply is plainly a rate limit at work. Source 8
// does not show the throttled response; 429 (RFC 6585 section 4), or a 4xx or
// 503 with Retry-After (RFC 9110 section 10.2.3), are the usual signs.
func throttled(r *oauthclient.Reply) bool {
	retry := r.Header.Get("Retry-After") != ""
	return r.Status == http.StatusTooManyRequests || (r.Status >= 400 && r.Status < 500 && retry) ||
		(r.Status == http.StatusServiceUnavailable && retry)
}

// refusesRegistration says whether a reply refuses a well-formed
// registration in a way that can be the per-address limit: the throttled
// response is not shown (source 7.3, 8), so any 4xx counts, and a 503 with
// Retry-After.
func refusesRegistration(r *oauthclient.Reply) bool {
	return (r.Status >= 400 && r.Status < 500) || throttled(r)
}

// skipThrottled stops a scenario whose request the host throttled: a rate
// limit is the host's right (source 7.3 and 8 for registration; RFC 6585
// section 4), so the scenario is not run, never failed. what names the
// request ("registration"); remedy, when set, says what else avoids it.
func (st *State) skipThrottled(r *oauthclient.Reply, what, remedy string) error {
	reason := fmt.Sprintf("%s throttled by the host's rate limit: HTTP %d", what, r.Status)
	if ra := r.Header.Get("Retry-After"); ra != "" {
		reason += ", Retry-After " + ra
	}
	reason += "; run again once the limit has refilled"
	if remedy != "" {
		reason += ", or " + remedy
	}
	return st.skip(reason)
}

// describeOAuth says in a few words what an OAuth reply was, for "actual".
func describeOAuth(r *oauthclient.Reply) string {
	if r == nil {
		return "no reply"
	}
	s := fmt.Sprintf("HTTP %d", r.Status)
	if r.JSON == nil {
		if len(r.Body) > 0 {
			s += " with body " + abbreviate(string(r.Body))
		}
		return s
	}
	if code, ok := r.JSON["error"]; ok {
		s += fmt.Sprintf(" with error %s", jsonText(code))
		if d, ok := r.JSON["error_description"]; ok {
			s += fmt.Sprintf(" and error_description %s", jsonText(d))
		}
		return s
	}
	keys := slices.Sorted(maps.Keys(r.JSON))
	return s + " with members " + strings.Join(keys, ", ")
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// oauthReply records an OAuth reply; a transport failure is the host's (it
// did not answer).
func (st *State) oauthReply(r *oauthclient.Reply, err error, what string) error {
	if err != nil {
		return st.depart(what, "an HTTP response", err.Error())
	}
	st.oauth = r
	return nil
}

func (st *State) needOAuth() error {
	if st.oauth == nil {
		return fmt.Errorf("no OAuth reply yet: the scenario must send something before judging a reply")
	}
	return nil
}

// register sends one registration; a throttled answer stops the scenario as
// not run (see skipThrottled).
func (st *State) register(ctx context.Context, body any) error {
	r, err := st.obeyRetryAfter(ctx, "registration", func() (*oauthclient.Reply, error) { return st.OAuth.Register(ctx, body) })
	if err := st.oauthReply(r, err, "registration ("+st.Target.Profile.OAuth.Register+")"); err != nil {
		return err
	}
	if throttled(r) {
		return st.skipThrottled(r, "registration", "")
	}
	if id, ok := r.String("client_id"); ok && r.Status/100 == 2 && id != "" {
		st.clients.accepted()
	}
	return nil
}

// registeredClient reuses the client the suite registered earlier in the run
// (source 7.3: a client registers once and keeps its client_id).
func (st *State) registeredClient(ctx context.Context) error {
	if id := st.clients.get(); id != "" {
		st.flow.clientID = id
		return nil
	}
	if err := st.newlyRegisteredClient(ctx); err != nil {
		return err
	}
	st.clients.keep(st.flow.clientID)
	return nil
}

func (st *State) newlyRegisteredClient(ctx context.Context) error {
	if err := st.register(ctx, clientBody); err != nil {
		return err
	}
	return st.registrationSucceeds()
}

func (st *State) registerWithURIs(ctx context.Context, list string) error {
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

func (st *State) registerWithBody(ctx context.Context, doc *godog.DocString) error {
	text, err := st.expand(doc.Content)
	if err != nil {
		return err
	}
	if !json.Valid([]byte(text)) {
		return fmt.Errorf("the registration body in the feature is not JSON")
	}
	return st.register(ctx, json.RawMessage(text))
}

func (st *State) registerWithoutURIs(ctx context.Context) error {
	return st.register(ctx, map[string]any{"client_name": "conform"})
}

// registrationSucceeds checks source section 4: a successful registration
// returns a client_id. The status is not shown, so any 2xx counts.
func (st *State) registrationSucceeds() error {
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

func (st *State) needClient() error {
	if st.flow.clientID == "" {
		return fmt.Errorf("no client yet: the scenario must register one first")
	}
	return nil
}

// askDeviceAuthorization starts a device authorization (RFC 8628 section
// 3.1) at the profile's endpoint; the source does not show it (section 4 gaps).
func (st *State) askDeviceAuthorization(ctx context.Context) error {
	if err := st.needClient(); err != nil {
		return err
	}
	r, err := st.OAuth.DeviceAuthorize(ctx, st.flow.clientID, nil)
	return st.oauthReply(r, err, "device authorization ("+st.Target.Profile.OAuth.DeviceAuthorization+")")
}

// deviceAuthorizationSucceeds accepts what RFC 8628 section 3.2 requires for
// the flow to go on: a 2xx with a device_code and a user_code.
func (st *State) deviceAuthorizationSucceeds() error {
	if err := st.needOAuth(); err != nil {
		return err
	}
	r := st.oauth
	if throttled(r) {
		return st.skipThrottled(r, "device authorization", "")
	}
	dc, okDC := r.String("device_code")
	uc, okUC := r.String("user_code")
	if r.Status/100 != 2 || !okDC || !okUC || dc == "" || uc == "" {
		return st.depart("device authorization for client "+st.flow.clientID,
			"a 2xx answer with device_code and user_code (RFC 8628 section 3.2)", describeOAuth(r), r.Exchange)
	}
	st.flow.deviceCode, st.flow.userCode = dc, uc
	st.vars["device_code"], st.vars["user_code"] = dc, uc
	return nil
}

// deviceAuthorizationRefused checks that a removed registration no longer
// starts a flow (source 3: "The client must then register again"). The
// refusal is not shown, so any 4xx counts.
func (st *State) deviceAuthorizationRefused() error {
	if err := st.needOAuth(); err != nil {
		return err
	}
	r := st.oauth
	if r.Status < 400 || r.Status > 499 || throttled(r) {
		return st.depart("device authorization for a removed registration ("+st.flow.clientID+")",
			"a 4xx refusal: the registration was removed and the client must register again", describeOAuth(r), r.Exchange)
	}
	return nil
}

func (st *State) deviceAuthorization(ctx context.Context) error {
	if err := st.askDeviceAuthorization(ctx); err != nil {
		return err
	}
	return st.deviceAuthorizationSucceeds()
}

// approve stands in for the person at the verification URI (RFC 8628
// section 3.3); the consent page is not in the source.
func (st *State) approve(ctx context.Context) error {
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

// token sends a token request for the scenario's client.
func (st *State) token(ctx context.Context, form url.Values) error {
	if st.flow.clientID != "" {
		form.Set("client_id", st.flow.clientID)
	}
	r, err := st.OAuth.Token(ctx, form)
	return st.oauthReply(r, err, "token request ("+st.Target.Profile.OAuth.Token+")")
}

// poll asks for the device grant's token once (RFC 8628 section 3.4; the
// source's "device_code" grant is this grant type).
func (st *State) poll(ctx context.Context) error {
	if st.flow.deviceCode == "" {
		return fmt.Errorf("no device code yet: the scenario must start a device authorization first")
	}
	return st.deviceToken(ctx, st.flow.deviceCode)
}

func (st *State) exchangeDeviceCode(ctx context.Context, code string) error {
	code, err := st.expand(code)
	if err != nil {
		return err
	}
	return st.deviceToken(ctx, code)
}

// deviceToken sends a device access token request by the grant name the
// host takes (oauthclient.DeviceGrant: the source says device_code, RFC 8628
// the URN) and says in the result which name that was.
func (st *State) deviceToken(ctx context.Context, code string) error {
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

func (st *State) requestGrant(ctx context.Context, grant string) error {
	grant, err := st.expand(grant)
	if err != nil {
		return err
	}
	return st.token(ctx, url.Values{"grant_type": {grant}})
}

// tokenResponse checks source sections 2 and 5.8: the device grant issues a
// credential with no expiry and no refresh token.
func (st *State) tokenResponse() error {
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
			"expires_in "+jsonText(r.JSON["expires_in"]), r.Exchange)
	case r.JSON["refresh_token"] != nil:
		st.flow.issued = tok
		return st.depart("token response", "no refresh_token: the device grant returns none (source 2, 5.8)",
			"a refresh_token", r.Exchange)
	}
	st.flow.issued = tok
	st.clients.completed(st.flow.clientID)
	return nil
}

func (st *State) withIssued() error {
	if st.flow.issued == "" {
		return fmt.Errorf("no credential issued yet in this scenario")
	}
	st.auth = "Bearer " + st.flow.issued
	return nil
}

// oauthError checks the common shape of every authorization-flow failure
// (source 7.3, RFC 6749 section 5.2) and returns the description.
func (st *State) oauthError(status int, code string) (string, error) {
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

func (st *State) oauthErrorExact(status int, code, want string) error {
	desc, err := st.oauthError(status, code)
	if err != nil {
		return err
	}
	if desc != want {
		return st.depart("OAuth error_description", fmt.Sprintf("%q", want), fmt.Sprintf("%q", desc), st.oauth.Exchange)
	}
	return nil
}

func (st *State) oauthErrorPrefix(status int, code, prefix string) error {
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
func (st *State) oauthErrorNaming(status int, code, names string) error {
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
func (st *State) oauthErrorIsNot(code string) error {
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
func (st *State) stillPending() error {
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
func (st *State) oauthServedAsJSON() error {
	if err := st.needOAuth(); err != nil {
		return err
	}
	ct := st.oauth.Header.Get("Content-Type")
	if !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		return st.depart("Content-Type header", `beginning with "application/json"`, fmt.Sprintf("%q", ct), st.oauth.Exchange)
	}
	return nil
}

// fetchURL GETs an absolute URL through a client rooted at its origin, so
// the exchange is recorded like any other.
func (st *State) fetchURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return st.depart("document URL", "an absolute URL", fmt.Sprintf("%q", raw))
	}
	origin := u.Scheme + "://" + u.Host
	r, err := oauthclient.New(origin, oauthclient.Endpoints{}, st.Target.HTTP).Get(ctx, u.RequestURI())
	return st.oauthReply(r, err, "GET "+raw)
}

func (st *State) fetchDocument(ctx context.Context, raw string) error {
	raw, err := st.expand(raw)
	if err != nil {
		return err
	}
	return st.fetchURL(ctx, raw)
}

// fetchChallengeMetadata follows the 401's challenge to its resource_metadata
// (source 7.2: "Follow the challenge").
func (st *State) fetchChallengeMetadata(ctx context.Context) error {
	if err := st.needReply(); err != nil {
		return err
	}
	values := st.reply.Header.Values("WWW-Authenticate")
	if meta := wire.ChallengeParam(values, "Bearer", "resource_metadata"); meta != "" {
		return st.fetchURL(ctx, meta)
	}
	return st.depart("WWW-Authenticate header", "a Bearer challenge with resource_metadata", fmt.Sprintf("%q", strings.Join(values, ", ")), st.reply.Last())
}

// documentStatus checks only that a discovery document answers: source 4
// does not show their bodies.
func (st *State) documentStatus(want int) error {
	if err := st.needOAuth(); err != nil {
		return err
	}
	if st.oauth.Status != want {
		return st.depart("HTTP status of "+st.oauth.Exchange.URL, want, describeOAuth(st.oauth), st.oauth.Exchange)
	}
	return nil
}

// sendToPeer sends a method to the peer instance, to show that a credential
// the target refuses is one its issuer accepts.
func (st *State) sendToPeer(ctx context.Context, method string) error {
	p := st.Target.Profile.Peer
	if p == nil || p.Target == "" {
		return st.skip("needs the peer's address: set peer.target")
	}
	peer := mcpclient.New(p.Target+"/mcp", st.Target.HTTP).Pin(st.Target.Profile.MCPRevision)
	r, err := peer.Call(ctx, st.auth, method, mcpclient.DefaultParams(method))
	return st.took(r, err)
}

// probeLimit registers as a client that registers at every start would,
// until the host refuses or registration_limit is reached (source 7.3, 8).
func (st *State) probeLimit(ctx context.Context, limitText string) error {
	limitText, err := st.expand(limitText)
	if err != nil {
		return err
	}
	limit, err := strconv.Atoi(limitText)
	if err != nil || limit < 1 {
		return fmt.Errorf("registration limit %q is not a positive number", limitText)
	}
	p := &limitProbe{limit: limit}
	st.flow.probe = p
	started := time.Now()
	lastNote := started
	for p.sent < limit {
		r, err := st.OAuth.Register(ctx, clientBody)
		if err != nil {
			return st.depart(fmt.Sprintf("registration %d of the limit probe", p.sent+1), "an HTTP response", err.Error())
		}
		p.sent++
		p.last = r
		st.oauth = r
		switch {
		case r.Status/100 == 2:
			p.accepted++
			st.clients.accepted()
		case refusesRegistration(r):
			p.refusal = r
			return nil
		default:
			return st.depart(fmt.Sprintf("registration %d of the limit probe", p.sent),
				"a 2xx acceptance, or a refusal (a 4xx, or 503 with Retry-After)", describeOAuth(r), r.Exchange)
		}
		// A slow host turns the probe into a long wait; say so (PRODUCT.md 8).
		if now := time.Now(); st.Announce != nil && now.Sub(lastNote) > 10*time.Second {
			lastNote = now
			remaining := time.Duration(limit-p.sent) * now.Sub(started) / time.Duration(p.sent)
			st.Announce(fmt.Sprintf("probing the registration limit: %d of at most %d registrations sent", p.sent, limit), remaining)
		}
	}
	return nil
}

// registrationRefused judges the probe. The throttled response is not shown
// (source 8), so any 4xx counts once this address has had a registration
// accepted in the run: that tells a throttle from a refused request.
func (st *State) registrationRefused() error {
	p := st.flow.probe
	if p == nil {
		return fmt.Errorf("no registration probe in this scenario")
	}
	if p.refusal == nil {
		return st.depart("per-address registration limit (source 7.3, 8)",
			fmt.Sprintf("a refusal within %d registrations (registration_limit in the profile)", p.limit),
			fmt.Sprintf("all %d registrations went through unthrottled; if the host's limit is higher, raise registration_limit (now %d) above it",
				p.sent, p.limit), lastExchange(p.last)...)
	}
	if !st.clients.acceptedAny() {
		return st.depart("per-address registration limit (source 7.3, 8)",
			"a refusal after at least one accepted registration from this address",
			"the first registration was refused: "+describeOAuth(p.refusal), p.refusal.Exchange)
	}
	st.vars["registrations_before_refusal"] = strconv.Itoa(p.accepted)
	return nil
}

func lastExchange(r *oauthclient.Reply) []wire.Exchange {
	if r == nil {
		return nil
	}
	return []wire.Exchange{r.Exchange}
}

// registeredClientWorks checks source 7.3: a client that registered once
// keeps its client_id and it keeps working, here by starting a device
// authorization, even after the address was throttled.
func (st *State) registeredClientWorks(ctx context.Context) error {
	id := st.clients.get()
	if id == "" {
		return fmt.Errorf("no client registered earlier in the run: the scenario must begin with a registered client")
	}
	st.flow.clientID = id
	r, err := st.OAuth.DeviceAuthorize(ctx, id, nil)
	if err := st.oauthReply(r, err, "device authorization ("+st.Target.Profile.OAuth.DeviceAuthorization+")"); err != nil {
		return err
	}
	if _, ok := r.String("device_code"); r.Status/100 != 2 || !ok {
		return st.depart("device authorization for the client registered before the limit",
			"a 2xx answer with a device_code: the client keeps its client_id (source 7.3)", describeOAuth(r), r.Exchange)
	}
	st.flow.deviceCode, _ = r.String("device_code")
	return nil
}
