package clientsteps

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"github.com/conform-mcp/conform/harness/scripted"
	"github.com/conform-mcp/conform/harness/wire"
)

// The judgements of what a client registers, of the state it sends, of its
// refresh requests, and of where it presents a credential. Registration and
// refresh tokens are optional features: a client that never uses one leaves
// its scenario not run, naming why.
func (st *scenario) registerRegistration(sc *godog.ScenarioContext) {
	sc.Step(`^every registration request named an application_type$`, st.judged(st.applicationType))
	sc.Step(`^the new authorization server received no client_id the first one issued$`, st.judged(st.noClientIDOfFirst))
	sc.Step(`^every authorization request carried a state$`, st.judged(st.stateSent))
	sc.Step(`^every refresh request named the protected resource metadata's resource$`, st.judged(st.refreshResource))
	sc.Step(`^the client had registered with refresh_token in its grant_types$`, st.judged(st.refreshGrantRegistered))
	sc.Step(`^the credential was sent only in the Authorization header$`, st.judged(st.credentialInHeaderOnly))
}

// registration is a registration request's body, as far as these read it.
type registration struct {
	ApplicationType *string  `json:"application_type"`
	GrantTypes      []string `json:"grant_types"`
}

func decodeRegistration(r scripted.Request) registration {
	var reg registration
	_ = json.Unmarshal(r.Body, &reg)
	return reg
}

func (st *scenario) applicationType() error {
	regs := registrations(st.log.Requests(), st.first())
	if len(regs) == 0 {
		return st.unseen("not applicable: the client did not register dynamically")
	}
	for _, r := range regs {
		reg := decodeRegistration(r)
		if reg.ApplicationType == nil || (*reg.ApplicationType != "native" && *reg.ApplicationType != "web") {
			got := "none"
			if reg.ApplicationType != nil {
				got = *reg.ApplicationType
			}
			return st.depart("application_type", `application_type "native" or "web"`, got, r)
		}
	}
	return nil
}

// issuedClientIDs are the client IDs srv's first authorization server's
// registrations answered.
func issuedClientIDs(reqs []scripted.Request, srv *scripted.Server) []string {
	var out []string
	for _, r := range registrations(reqs, srv) {
		var c struct {
			ClientID string `json:"client_id"`
		}
		if r.Origin == "as" && json.Unmarshal(r.RespBody, &c) == nil && c.ClientID != "" {
			out = append(out, c.ClientID)
		}
	}
	return out
}

func (st *scenario) noClientIDOfFirst() error {
	srv := st.first()
	ids := issuedClientIDs(st.log.Requests(), srv)
	if len(ids) == 0 {
		return st.skip("not applicable: the client registered no client with the first authorization server; " + describe(st.runs[0].res))
	}
	moved := filter(st.log.Requests(), func(r scripted.Request) bool { return r.Server == srv.Name && r.Origin == scripted.MovedOrigin })
	if len(moved) == 0 {
		why := "the client sent the new authorization server nothing"
		if !slices.ContainsFunc(after(st.log.Requests(), st.last().first-1), func(r scripted.Request) bool { return isResourceMetadata(r, srv) }) {
			// The move shows only there: a client that never reads it
			// again cannot know of the new one (a refresh at the first
			// one's token endpoint is what the Inspector CLI tries).
			why += ": it did not ask for the protected resource metadata again, which names it"
		}
		return st.unseen(why)
	}
	for _, r := range moved {
		used := r.URL.Query().Get("client_id")
		if r.Form != nil && r.Form.Get("client_id") != "" {
			used = r.Form.Get("client_id")
		}
		if slices.Contains(ids, used) {
			return st.depart("authorization server binding", "client IDs the new authorization server issued only", "the first one's client_id sent with "+r.Method+" "+wire.MaskURL(r.URL), r)
		}
	}
	return nil
}

func (st *scenario) stateSent() error {
	auths, err := st.authorizations()
	if err != nil {
		return err
	}
	for _, a := range auths {
		if a.URL.Query().Get("state") == "" {
			return st.depart("state", "a state parameter in the authorization request", "none", a)
		}
	}
	return nil
}

// refreshes are the refresh token requests, or a not-run error: refresh
// tokens are optional, and a client that never uses one is not judged.
func (st *scenario) refreshes() ([]scripted.Request, error) {
	return st.sent(func(r scripted.Request) bool {
		return isToken(r, st.first()) && r.Form.Get("grant_type") == "refresh_token"
	}, "not applicable: the client did not use a refresh token")
}

func (st *scenario) refreshResource() error {
	got, err := st.refreshes()
	if err != nil {
		return err
	}
	for _, r := range got {
		if r.Form.Get("resource") != st.first().Resource {
			return st.depart("resource parameter", "resource="+st.first().Resource+" in the refresh request", "resource="+strings.TrimSpace(r.Form.Get("resource")), r)
		}
	}
	return nil
}

func (st *scenario) refreshGrantRegistered() error {
	if _, err := st.refreshes(); err != nil {
		return err
	}
	regs := registrations(st.log.Requests(), st.first())
	if len(regs) == 0 {
		return st.unseen("not applicable: the client did not register dynamically")
	}
	for _, r := range regs {
		if !slices.Contains(decodeRegistration(r).GrantTypes, "refresh_token") {
			return st.depart("grant_types", "grant_types naming refresh_token", decodeRegistration(r).GrantTypes, r)
		}
	}
	return nil
}

func (st *scenario) credentialInHeaderOnly() error {
	if _, err := st.needToken(); err != nil {
		return err
	}
	for _, r := range st.log.Requests() {
		for _, t := range st.issued() {
			if strings.Contains(r.URL.RawQuery, t) || strings.Contains(string(r.Body), t) {
				return st.depart("credential presentation", "the credential in the Authorization header only", "it was in the query or body of "+r.Method+" "+wire.MaskURL(r.URL), r)
			}
		}
	}
	return nil
}

// newTokenAfterRefusal judges the second start of a client that desires
// refresh tokens, whose token was revoked between the starts: after the MCP
// server refused the token, the client obtained another, by whatever grant,
// and called with it (authorization 10: "MCP Clients that desire refresh
// tokens ... MUST NOT assume refresh tokens will be issued").
func (st *scenario) newTokenAfterRefusal() error {
	if len(st.runs) < 2 {
		return fmt.Errorf("the scenario ran the client once; this judges a second start")
	}
	srv := st.first()
	if !desiresRefresh(st.log.Requests(), srv) {
		return st.unseen("not applicable: the client showed no desire for refresh tokens (no refresh_token in the grant_types it registered, no offline_access asked for)")
	}
	var refused *scripted.Request
	for _, r := range after(st.log.Requests(), st.runs[1].first-1) {
		if isMCP(r, srv) && r.Status == http.StatusUnauthorized && bearerOf(r) != "" {
			refused = &r
			break
		}
	}
	if refused == nil {
		return st.unseen("the client did not present its revoked token in its second start")
	}
	later := after(st.log.Requests(), refused.Seq)
	fresh := slices.DeleteFunc(srv.Issued(st.log), func(t string) bool { return t == bearerOf(*refused) })
	if authorizedCall(later, srv, fresh) == nil {
		return st.depart("a new token", "a new token obtained after the refusal (no refresh token was issued), and a call with it answered 200", "none; "+describe(st.last().res), *refused)
	}
	return nil
}

// desiresRefresh says whether the client showed it desires refresh tokens:
// it registered refresh_token among its grant_types, or asked for
// offline_access.
func desiresRefresh(reqs []scripted.Request, srv *scripted.Server) bool {
	for _, r := range registrations(reqs, srv) {
		if slices.Contains(decodeRegistration(r).GrantTypes, "refresh_token") {
			return true
		}
	}
	return slices.ContainsFunc(reqs, func(r scripted.Request) bool {
		return isAuthorization(r, srv) && slices.Contains(strings.Fields(r.URL.Query().Get("scope")), "offline_access")
	})
}
