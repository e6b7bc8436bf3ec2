package clientsteps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/scripted"
	"github.com/conform-mcp/conform/harness/wire"
)

func (st *scenario) registerJudgements(sc *godog.ScenarioContext) {
	sc.Step(`^the client made an authorized call$`, st.judged(st.authorizedCall))
	sc.Step(`^the client requested the protected resource metadata at the URL the challenge named$`, st.judged(st.metadataFromChallenge))
	sc.Step(`^the client requested the (protected resource|authorization server) metadata at the well-known URIs in the specification's order$`, func(which string) error {
		return st.judged(map[string]func() error{"protected resource": st.resourceMetadataOrder, "authorization server": st.serverMetadataOrder}[which])()
	})
	sc.Step(`^the client stopped before (using any endpoint the authorization server metadata names|its authorization request|any request to the authorization server)$`, func(where string) error {
		return st.judged(map[string]func() error{
			"using any endpoint the authorization server metadata names": st.stoppedAfterMetadata,
			"its authorization request":                                  st.stoppedBeforeAuthorization,
			"any request to the authorization server":                    st.stoppedAfterResourceMetadata,
		}[where])()
	})
	sc.Step(`^after its token was refused, the client obtained a new one and called with it$`, st.judged(st.newTokenAfterRefusal))
	sc.Step(`^the client stopped after the redirect, before any token request$`, st.judged(st.stoppedAfterRedirect))
	sc.Step(`^every authorization request used PKCE with S256, and its code was redeemed with the matching code_verifier$`, st.judged(st.pkce))
	sc.Step(`^every authorization and token request named the protected resource metadata's resource$`, st.judged(st.resource))
	sc.Step(`^the authorization request asked for every scope the challenge named$`, st.judged(st.challengeScope))
	sc.Step(`^after the 403 the client asked for the scopes it named, and its call then succeeded$`, st.judged(st.stepUp))
	sc.Step(`^after the 403 the client asked for the scopes it was granted alongside those the 403 named$`, st.judged(st.stepUpKeepsGranted))
	sc.Step(`^no two authorization requests carried the same code_challenge$`, st.judged(st.freshChallenges))
	sc.Step(`^every request to the MCP server after the first token carried a token in the Authorization header$`, st.judged(st.tokenEveryRequest))
	sc.Step(`^no request carried an access token in its URI query$`, st.judged(st.noQueryToken))
	sc.Step(`^the second server received no token the first server's authorization server issued$`, st.judged(st.noTokenToSecond))
	sc.Step(`^every request to the MCP server carried the 2026-07-28 headers, matching its body$`, st.judged(st.modernHeaders))
	sc.Step(`^every request to the MCP server named in MCP-Protocol-Version the protocol version of its body's _meta$`, st.judged(st.versionHeaderMatches))
	sc.Step(`^the client followed the challenge to \{base\}/\.well-known/oauth-protected-resource$`, st.judged(st.followedChallenge))
	sc.Step(`^the second start registered no client and used the client_id of the first$`, st.judged(st.registeredOnce))
	sc.Step(`^the client started the device flow again after invalid_grant$`, st.judged(st.restartedDeviceFlow))
	sc.Step(`^the client signed in again after its credential was refused$`, st.judged(st.signedInAgain))
	sc.Step(`^the client exited with a failure status$`, st.judged(st.exitedFailing))
	st.registerRegistration(sc)
	st.registerDocuments(sc)
	st.registerClientAuth(sc)
	st.registerRedirect(sc)
}

// judged guards a judgement: it reads the client's runs, so a feature that
// judges before any run is the suite's own mistake, said as such.
func (st *scenario) judged(judge func() error) func() error {
	return func() error {
		if len(st.servers) == 0 || len(st.runs) == 0 {
			return fmt.Errorf("a judgement of the client before any scripted server ran it")
		}
		return judge()
	}
}

// first is the scenario's first scripted server.
func (st *scenario) first() *scripted.Server { return st.servers[0] }

// last is the scenario's last run.
func (st *scenario) last() *run { return st.runs[len(st.runs)-1] }

// depart blames the client, showing the requests given and every run of
// the client, credentials masked.
func (st *scenario) depart(check string, expected, actual any, shown ...scripted.Request) error {
	return st.departWith(check, expected, actual, nil, shown...)
}

// departWith is depart with exchanges of conform's own after the requests
// shown: a client's document conform fetched.
func (st *scenario) departWith(check string, expected, actual any, own []wire.Exchange, shown ...scripted.Request) error {
	var ex []wire.Exchange
	for _, r := range shown {
		ex = append(ex, exchange(r))
	}
	ex = append(ex, own...)
	secrets := st.issued()
	for _, r := range st.runs {
		ex = append(ex, runExchange(r.res, secrets))
	}
	return outcome.Departf(check, wire.MaskSecret(fmt.Sprint(expected), secrets...), wire.MaskSecret(fmt.Sprint(actual), secrets...), ex...)
}

// issued are the tokens every scripted server of the scenario issued.
func (st *scenario) issued() []string {
	var out []string
	for _, s := range st.servers {
		out = append(out, s.Issued(st.log)...)
	}
	return out
}

// authorizedCall is a request to srv's MCP endpoint bearing a token srv
// issued, answered 200, after seq; nil when there is none.
func authorizedCall(reqs []scripted.Request, srv *scripted.Server, tokens []string) *scripted.Request {
	for _, r := range reqs {
		if isMCP(r, srv) && r.Status == http.StatusOK && slices.Contains(tokens, bearerOf(r)) {
			return &r
		}
	}
	return nil
}

func (st *scenario) authorizedCall() error {
	srv := st.first()
	if authorizedCall(st.log.Requests(), srv, srv.Issued(st.log)) == nil {
		return st.depart("authorized call", "a request to "+srv.Endpoint+" with a token its authorization server issued, answered 200",
			"none; "+describe(st.last().res))
	}
	return nil
}

// controlPassed is the control a refusal is judged after (issue 23, item
// 4): the same client, against a compliant server in the same run,
// completed the flow and made an authorized call. It runs once per run.
func (st *scenario) controlPassed(ctx context.Context) error {
	st.controlOnce.Do(func() {
		reason := st.runControl(ctx)
		st.control = &reason
	})
	if *st.control != "" {
		return st.skip("a refusal is judged only after a control, and the control failed: " + *st.control)
	}
	st.notes.Observe(st.pickleID, "control: the client completed the flow against a compliant server in this run")
	return nil
}

func (st *scenario) runControl(ctx context.Context) string {
	log := st.newLog()
	srv, err := startServer(st.cfg, "control", scripted.Compliant, log)
	if err != nil {
		return err.Error()
	}
	defer srv.Close()
	control := &scenario{suite: st.suite, log: log, servers: []*scripted.Server{srv}, toolCall: st.cfg.Pack == "source"}
	command := control.command(control.toolCall)
	if command == "" {
		return "it needs a client command that names {tool}"
	}
	r, err := control.execute(ctx, srv, command, log)
	if err != nil {
		return err.Error()
	}
	if authorizedCall(log.Requests(), srv, srv.Issued(log)) == nil {
		return "against the compliant server the client made no authorized call (" + describe(r.res) + ")"
	}
	ids, _ := presentedClientIDs(log.Requests(), srv)
	if i := slices.IndexFunc(ids, st.namesDocument); i >= 0 {
		st.controlDocument = ids[i]
	}
	return ""
}

// stopped checks that the client's last run ended of its own accord, and
// had reached the step at which the scenario judges a refusal: a crash or a
// stop at another step is no refusal (issue 23, item 4).
func (st *scenario) stopped(step string, reached bool) error {
	if c := st.last().res.Crashed(); c != "" {
		return st.skip("a crash is no refusal: " + c)
	}
	if !reached {
		return st.skip("the client stopped before " + step + ", so its refusal there cannot be judged (" + describe(st.last().res) + ")")
	}
	return nil
}

// challenged is the first 401 the MCP server answered, nil when none.
func (st *scenario) challenged(srv *scripted.Server) *scripted.Request {
	for _, r := range st.log.Requests() {
		if isMCP(r, srv) && r.Status == http.StatusUnauthorized {
			return &r
		}
	}
	return nil
}

// needChallenge is the first 401, or a not-run error when the client
// never met one.
func (st *scenario) needChallenge() (*scripted.Request, error) {
	c := st.challenged(st.first())
	if c == nil {
		return nil, st.unseen("the client never sent a request the server answered 401")
	}
	return c, nil
}

func (st *scenario) metadataFromChallenge() error {
	c, err := st.needChallenge()
	if err != nil {
		return err
	}
	srv := st.first()
	got := filter(after(st.log.Requests(), c.Seq), func(r scripted.Request) bool { return isResourceMetadata(r, srv) })
	if !slices.ContainsFunc(got, func(r scripted.Request) bool { return at(r, srv.Metadata) }) {
		return st.depart("protected resource metadata", "GET "+srv.Metadata+" (the challenge's resource_metadata)", urls(got), *c)
	}
	return nil
}

// urls lists the requests' method and URL, or says there were none.
func urls(reqs []scripted.Request) string {
	if len(reqs) == 0 {
		return "no such request"
	}
	var out []string
	for _, r := range reqs {
		out = append(out, r.Method+" "+wire.MaskURL(r.URL))
	}
	return strings.Join(out, ", then ")
}

// inOrder checks that the requests for metadata follow the listed order
// (outOfOrder), showing every metadata request the client sent.
func (st *scenario) inOrder(what string, got []scripted.Request, order []string) error {
	if r, ok := outOfOrder(got, order); ok {
		return st.depart(what+" discovery order", "GET "+strings.Join(order, ", then GET ")+" (stopping at the first found)", urls(got), r)
	}
	if !slices.ContainsFunc(got, func(r scripted.Request) bool { return listed(r, order) }) {
		return st.depart(what+" discovery order", "GET "+order[0]+" first", urls(got))
	}
	return nil
}

// listed says whether r asks for one of the URLs in order.
func listed(r scripted.Request, order []string) bool {
	return slices.ContainsFunc(order, func(u string) bool { return at(r, u) })
}

// outOfOrder is the first request for a listed URL that breaks the listed
// order: the first listed URL asked for must be the first listed, each next
// new one the next listed. The sentences order the listed URLs only
// (discovery.2: "in the order listed above"; discovery.3: "clients MUST try
// endpoints in the following priority order"), so a URL they do not list, asked for between two listed
// ones, is no departure (the TypeScript SDK asks for RFC 8414's document at
// the issuer's root after its path-inserted one); using what it answers
// would be, and is judged where an issuer is checked (CLI-4). A URL asked
// for again (discovery run again, for a second token) is no departure
// either.
func outOfOrder(got []scripted.Request, order []string) (scripted.Request, bool) {
	var firsts []scripted.Request
	for _, r := range got {
		if listed(r, order) && !slices.ContainsFunc(firsts, func(f scripted.Request) bool { return f.URL.Path == r.URL.Path && f.URL.Host == r.URL.Host }) {
			firsts = append(firsts, r)
		}
	}
	for i, r := range firsts {
		if !at(r, order[i]) {
			return r, true
		}
	}
	return scripted.Request{}, false
}

func (st *scenario) resourceMetadataOrder() error {
	c, err := st.needChallenge()
	if err != nil {
		return err
	}
	srv := st.first()
	got := filter(after(st.log.Requests(), c.Seq), func(r scripted.Request) bool { return isResourceMetadata(r, srv) })
	u := srv.Endpoint
	root := origin(u) + "/.well-known/oauth-protected-resource"
	return st.inOrder("protected resource metadata", got, []string{root + strings.TrimSuffix(path(u), "/"), root})
}

func (st *scenario) serverMetadataOrder() error {
	if _, err := st.needChallenge(); err != nil {
		return err
	}
	srv := st.first()
	order, err := oauthclient.ServerMetadataURIs(srv.Issuer)
	if err != nil {
		return err
	}
	got := filter(st.log.Requests(), func(r scripted.Request) bool { return isServerMetadata(r, srv) })
	return st.inOrder("authorization server metadata", got, order)
}

// lastMetadata is the client's last request for authorization server
// metadata, nil when none.
func (st *scenario) lastMetadata() *scripted.Request {
	got := filter(st.log.Requests(), func(r scripted.Request) bool { return isServerMetadata(r, st.first()) && r.Status == http.StatusOK })
	if len(got) == 0 {
		return nil
	}
	return &got[len(got)-1]
}

func (st *scenario) stoppedAfterMetadata() error {
	md := st.lastMetadata()
	if err := st.stopped("it fetched the authorization server metadata", md != nil); err != nil {
		return err
	}
	srv := st.first()
	used := filter(after(st.log.Requests(), md.Seq), func(r scripted.Request) bool {
		return r.Server == srv.Name && r.Origin == "as" && !isServerMetadata(r, srv)
	})
	if len(used) > 0 {
		return st.depart("metadata with another issuer", "no request to an endpoint the metadata names (its issuer is not "+srv.Issuer+")", urls(used), append([]scripted.Request{*md}, used...)...)
	}
	return nil
}

// stoppedAfterResourceMetadata judges a client given protected resource
// metadata for another resource (RFC 9728 3.3: "MUST NOT be used"): it
// fetched it, and sent the authorization server it names nothing.
func (st *scenario) stoppedAfterResourceMetadata() error {
	srv := st.first()
	got := filter(st.log.Requests(), func(r scripted.Request) bool { return isResourceMetadata(r, srv) && r.Status == http.StatusOK })
	if err := st.stopped("it fetched the protected resource metadata", len(got) > 0); err != nil {
		return err
	}
	used := filter(st.log.Requests(), func(r scripted.Request) bool { return r.Server == srv.Name && r.Origin == "as" })
	if len(used) > 0 {
		return st.depart("metadata of another resource", "no request to the authorization server it names (its resource is not "+srv.Endpoint+")", urls(used), append([]scripted.Request{got[0]}, used...)...)
	}
	return nil
}

func (st *scenario) stoppedBeforeAuthorization() error {
	md := st.lastMetadata()
	if err := st.stopped("it fetched the authorization server metadata", md != nil); err != nil {
		return err
	}
	srv := st.first()
	went := filter(st.log.Requests(), func(r scripted.Request) bool { return isAuthorization(r, srv) || isToken(r, srv) })
	if len(went) > 0 {
		return st.depart("authorization without PKCE support", "no authorization request (the metadata has no code_challenge_methods_supported)", urls(went), append([]scripted.Request{*md}, went...)...)
	}
	return nil
}

func (st *scenario) stoppedAfterRedirect() error {
	delivered := false
	for _, o := range st.last().res.Opened {
		delivered = delivered || o.Delivered
	}
	if err := st.stopped("the authorization response was delivered to it", delivered); err != nil {
		return err
	}
	srv := st.first()
	redeemed := filter(st.log.Requests(), func(r scripted.Request) bool { return isCodeRedemption(r, srv) })
	if len(redeemed) > 0 {
		return st.depart("authorization response validation", "no token request ("+discarded[st.variant]+")", urls(redeemed), redeemed...)
	}
	return nil
}

// discarded says, for each variant whose authorization response a client
// must discard, why: the same judgement serves RFC 9207's iss check
// (authorization.7.1) and the state check (security.6).
var discarded = map[scripted.Variant]string{
	scripted.IssWrong:   "the response's iss is not the issuer's, which RFC 9207 2.4's check rejects",
	scripted.IssMissing: "the response has no iss though the metadata advertises it, which RFC 9207 2.4's check rejects",
	scripted.StateWrong: "the response's state is not the one the client sent, which security.6 says to discard",
}

// authorizations are the authorization requests, or a not-run error when
// the client sent none.
func (st *scenario) authorizations() ([]scripted.Request, error) {
	return st.sent(func(r scripted.Request) bool { return isAuthorization(r, st.first()) }, "the client sent no authorization request")
}

func (st *scenario) resource() error {
	auths, err := st.authorizations()
	if err != nil {
		return err
	}
	srv := st.first()
	reqs := append(auths, filter(st.log.Requests(), func(r scripted.Request) bool { return isCodeRedemption(r, srv) })...)
	for _, r := range reqs {
		got := r.URL.Query().Get("resource")
		if r.Method == http.MethodPost {
			got = r.Form.Get("resource")
		}
		if got != srv.Resource {
			return st.depart("resource parameter", "resource="+srv.Resource, fmt.Sprintf("resource=%q", got), r)
		}
	}
	return nil
}

// needToken is the Seq of the first token response, or a not-run error.
func (st *scenario) needToken() (int, error) {
	for _, r := range st.log.Requests() {
		if isToken(r, st.first()) && r.Status == http.StatusOK {
			return r.Seq, nil
		}
	}
	return 0, st.unseen("the client obtained no token")
}

func (st *scenario) tokenEveryRequest() error {
	seq, err := st.needToken()
	if err != nil {
		return err
	}
	srv := st.first()
	for _, r := range after(st.log.Requests(), seq) {
		if r.Server == srv.Name && r.Origin == "mcp" && r.URL.Path == path(srv.Endpoint) && bearerOf(r) == "" {
			return st.depart("token on every request", "Authorization: Bearer <token> on every request to "+srv.Endpoint, "a request without it", r)
		}
	}
	return nil
}

func (st *scenario) noQueryToken() error {
	if _, err := st.needToken(); err != nil {
		return err
	}
	tokens := st.issued()
	for _, r := range st.log.Requests() {
		q := r.URL.Query()
		if q.Has("access_token") || slices.ContainsFunc(tokens, func(t string) bool { return strings.Contains(r.URL.RawQuery, t) }) {
			return st.depart("token in the query", "no access token in any URI query", "a token in the query of "+r.Method+" "+wire.MaskURL(r.URL), r)
		}
	}
	return nil
}

func (st *scenario) noTokenToSecond() error {
	first := st.first()
	tokens := first.Issued(st.log)
	if len(tokens) == 0 {
		return st.skip("the client obtained no token from the first server; " + describe(st.runs[0].res))
	}
	second := st.servers[len(st.servers)-1]
	for _, r := range st.log.Requests() {
		if r.Server != second.Name {
			continue
		}
		if slices.ContainsFunc(tokens, func(t string) bool { return carries(r, t) }) {
			return st.depart("token for another server", "no token of "+first.Endpoint+"'s authorization server sent to "+second.Endpoint, "one was sent with "+r.Method+" "+wire.MaskURL(r.URL), r)
		}
	}
	return nil
}

func (st *scenario) modernHeaders() error {
	srv := st.first()
	posts := filter(st.log.Requests(), func(r scripted.Request) bool { return isMCP(r, srv) && r.Method == http.MethodPost })
	if !slices.ContainsFunc(posts, func(r scripted.Request) bool { return r.Header.Get("MCP-Protocol-Version") == "2026-07-28" }) {
		return st.skip("the client does not speak MCP 2026-07-28: no request it sent carried MCP-Protocol-Version: 2026-07-28")
	}
	for _, r := range posts {
		method, request := rpcMethod(r.Body)
		switch {
		case r.Header.Get("MCP-Protocol-Version") == "":
			return st.depart("request metadata headers", "MCP-Protocol-Version on every POST", "none", r)
		case request && r.Header.Get("Mcp-Method") != method:
			return st.depart("request metadata headers", "Mcp-Method: "+method, fmt.Sprintf("%q", r.Header.Get("Mcp-Method")), r)
		}
	}
	return nil
}

// metaVersion is the io.modelcontextprotocol/protocolVersion a request
// body's params._meta carries, "" when it carries none.
func metaVersion(body []byte) string {
	var m struct {
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil {
		return ""
	}
	v, _ := m.Params.Meta["io.modelcontextprotocol/protocolVersion"].(string)
	return v
}

// versionHeaderMatches judges the MCP-Protocol-Version of every POST whose
// body's _meta carries a protocol version (transport 6.1: "The header value
// MUST match" it).
func (st *scenario) versionHeaderMatches() error {
	srv := st.first()
	posts := filter(st.log.Requests(), func(r scripted.Request) bool {
		return isMCP(r, srv) && r.Method == http.MethodPost && metaVersion(r.Body) != ""
	})
	if len(posts) == 0 {
		return st.skip("the client does not speak MCP 2026-07-28: no request it sent carried a protocol version in its body's _meta")
	}
	for _, r := range posts {
		if got, want := r.Header.Get("MCP-Protocol-Version"), metaVersion(r.Body); got != want {
			return st.depart("protocol version header", "MCP-Protocol-Version: "+want+" (its body's _meta)", fmt.Sprintf("%q", got), r)
		}
	}
	return nil
}

func (st *scenario) followedChallenge() error {
	c, err := st.needChallenge()
	if err != nil {
		return err
	}
	srv := st.first()
	want := origin(srv.Endpoint) + "/.well-known/oauth-protected-resource"
	got := filter(after(st.log.Requests(), c.Seq), func(r scripted.Request) bool {
		return r.Server == srv.Name && r.Method == http.MethodGet && at(r, want)
	})
	if len(got) == 0 {
		return st.depart("following the challenge", "GET "+want+" after the 401", urls(filter(after(st.log.Requests(), c.Seq), func(r scripted.Request) bool { return r.Server == srv.Name })), *c)
	}
	return nil
}

// registrations are the registration requests, answered as they were.
func registrations(reqs []scripted.Request, srv *scripted.Server) []scripted.Request {
	return filter(reqs, func(r scripted.Request) bool {
		return r.Server == srv.Name && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/register")
	})
}

// accepted are the registrations answered with a client_id: a request the
// server refused (a client that guessed the endpoint, 404) registered no
// client to keep.
func accepted(regs []scripted.Request) []scripted.Request {
	return filter(regs, func(r scripted.Request) bool {
		var c struct {
			ClientID string `json:"client_id"`
		}
		return r.Status >= 200 && r.Status < 300 && json.Unmarshal(r.RespBody, &c) == nil && c.ClientID != ""
	})
}

func (st *scenario) registeredOnce() error {
	if len(st.runs) < 2 {
		return fmt.Errorf("the scenario ran the client once; this judges a second start")
	}
	srv := st.first()
	second := st.runs[1].first
	firstRun := filter(st.log.Requests(), func(r scripted.Request) bool { return r.Seq < second })
	regs := accepted(registrations(firstRun, srv))
	if len(regs) == 0 {
		return st.skip("the client registered no client in its first start; " + describe(st.runs[0].res))
	}
	var kept struct {
		ClientID string `json:"client_id"`
	}
	_ = json.Unmarshal(regs[len(regs)-1].RespBody, &kept)
	later := after(st.log.Requests(), second-1)
	if again := registrations(later, srv); len(again) > 0 {
		return st.depart("registration", "no registration in the second start (the client_id kept)", urls(again), again...)
	}
	signIns := filter(later, func(r scripted.Request) bool { return isDeviceAuthorization(r, srv) })
	if len(signIns) == 0 {
		return st.unseen("the second start did not sign in again, so which client_id it kept is not seen")
	}
	if got := signIns[0].Form.Get("client_id"); got != kept.ClientID {
		return st.depart("registration", "the second start's sign-in with the client_id "+kept.ClientID, "client_id "+got, signIns[0])
	}
	return nil
}

// isDeviceAuthorization says whether r starts a device flow.
func isDeviceAuthorization(r scripted.Request, srv *scripted.Server) bool {
	return r.Server == srv.Name && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/device_authorization")
}

func (st *scenario) restartedDeviceFlow() error {
	srv := st.first()
	var refused *scripted.Request
	for _, r := range st.log.Requests() {
		if isToken(r, srv) && r.Form.Get("grant_type") == "device_code" && strings.Contains(string(r.RespBody), `"invalid_grant"`) {
			refused = &r
			break
		}
	}
	if refused == nil {
		return st.unseen("the client never polled with a device code the server refused")
	}
	restarted := filter(after(st.log.Requests(), refused.Seq), func(r scripted.Request) bool { return isDeviceAuthorization(r, srv) })
	if len(restarted) == 0 {
		return st.depart("device flow after invalid_grant", "a new device authorization request (the flow restarted)", "none; "+describe(st.last().res), *refused)
	}
	return nil
}

func (st *scenario) signedInAgain() error {
	if len(st.runs) < 2 {
		return fmt.Errorf("the scenario ran the client once; this judges a second start")
	}
	srv := st.first()
	old := srv.Issued(st.log)
	var refused *scripted.Request
	for _, r := range after(st.log.Requests(), st.runs[1].first-1) {
		if isMCP(r, srv) && r.Status == http.StatusUnauthorized && slices.Contains(old, bearerOf(r)) {
			refused = &r
			break
		}
	}
	if refused == nil {
		return st.unseen("the client did not present its revoked credential in its second start")
	}
	again := filter(after(st.log.Requests(), refused.Seq), func(r scripted.Request) bool { return isDeviceAuthorization(r, srv) })
	if len(again) == 0 {
		return st.depart("signing in again", "a new sign-in (device authorization) after the credential was refused", "none; "+describe(st.last().res), *refused)
	}
	return nil
}

func (st *scenario) exitedFailing() error {
	r := st.last().res
	if c := r.Crashed(); c != "" {
		return st.skip("the client did not end of its own accord: " + c)
	}
	srv := st.first()
	called := filter(st.log.Requests(), func(q scripted.Request) bool {
		m, _ := rpcMethod(q.Body)
		return isMCP(q, srv) && m == "tools/call" && q.Status == http.StatusOK && strings.Contains(string(q.RespBody), `"isError":true`)
	})
	if len(called) == 0 {
		return st.skip("the client never received the tool result with isError true; " + describe(r))
	}
	if r.ExitCode == 0 {
		return st.depart("isError", "a failure exit status after a tool result with isError true", "exit status 0", called[0])
	}
	return nil
}
