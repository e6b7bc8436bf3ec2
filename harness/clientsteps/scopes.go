package clientsteps

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/scripted"
	"github.com/conform-mcp/conform/harness/wire"
)

// The judgements of the scopes a client asks for: the challenge's at first
// (authorization 6), and on step-up those it needs alongside those it holds
// (authorization 6 and 11).

func (st *scenario) challengeScope() error {
	c, err := st.needChallenge()
	if err != nil {
		return err
	}
	auths, err := st.authorizations()
	if err != nil {
		return err
	}
	want := wire.ChallengeParam(c.RespHeader.Values("WWW-Authenticate"), "Bearer", "scope")
	asked := strings.Fields(auths[0].URL.Query().Get("scope"))
	for _, s := range strings.Fields(want) {
		if !slices.Contains(asked, s) {
			return st.depart("scope selection", "a scope with every scope the challenge named: "+want, fmt.Sprintf("scope=%q", strings.Join(asked, " ")), *c, auths[0])
		}
	}
	return nil
}

// firstForbidden is the first 403 the MCP server answered, or a not-run
// error when the client never met one.
func (st *scenario) firstForbidden() (*scripted.Request, error) {
	for _, r := range st.log.Requests() {
		if isMCP(r, st.first()) && r.Status == http.StatusForbidden {
			return &r, nil
		}
	}
	return nil, st.unseen("the server never answered the client 403 insufficient_scope")
}

func (st *scenario) stepUp() error {
	srv := st.first()
	forbidden, err := st.firstForbidden()
	if err != nil {
		return err
	}
	want := strings.Fields(wire.ChallengeParam(forbidden.RespHeader.Values("WWW-Authenticate"), "Bearer", "scope"))
	later := after(st.log.Requests(), forbidden.Seq)
	asked := filter(later, func(r scripted.Request) bool {
		got := strings.Fields(r.URL.Query().Get("scope"))
		return isAuthorization(r, srv) && !slices.ContainsFunc(want, func(s string) bool { return !slices.Contains(got, s) })
	})
	if len(asked) == 0 {
		return st.depart("step-up authorization", "an authorization request for "+strings.Join(want, " ")+" after the 403", urls(filter(later, func(r scripted.Request) bool { return isAuthorization(r, srv) })), *forbidden)
	}
	if authorizedCall(after(later, asked[0].Seq), srv, srv.Issued(st.log)) == nil {
		return st.depart("step-up authorization", "the call made again with the new token, answered 200", "none; "+describe(st.last().res), *forbidden)
	}
	return nil
}

// stepUpKeepsGranted judges the scope of the re-authorization after a 403
// that names only what the token lacks (authorization 6: "include these
// scopes alongside any previously granted scopes"). What was granted is
// what the last token response before the 403 says it was.
func (st *scenario) stepUpKeepsGranted() error {
	forbidden, err := st.firstForbidden()
	if err != nil {
		return err
	}
	srv := st.first()
	var granted []string
	for _, r := range st.log.Requests() {
		if r.Seq < forbidden.Seq && isToken(r, srv) && r.Status == http.StatusOK {
			var tok struct {
				Scope string `json:"scope"`
			}
			if json.Unmarshal(r.RespBody, &tok) == nil {
				granted = strings.Fields(tok.Scope)
			}
		}
	}
	if len(granted) == 0 {
		return st.unseen("no token response before the 403 said which scope it granted")
	}
	again := filter(after(st.log.Requests(), forbidden.Seq), func(r scripted.Request) bool { return isAuthorization(r, srv) })
	if len(again) == 0 {
		return st.unseen("the client did not authorize again after the 403 (CLI-9 judges that)")
	}
	want := slices.Clone(granted)
	for _, s := range strings.Fields(wire.ChallengeParam(forbidden.RespHeader.Values("WWW-Authenticate"), "Bearer", "scope")) {
		if !slices.Contains(want, s) {
			want = append(want, s)
		}
	}
	asked := strings.Fields(again[0].URL.Query().Get("scope"))
	if slices.ContainsFunc(want, func(s string) bool { return !slices.Contains(asked, s) }) {
		return st.depart("step-up scopes", "scope with the scopes granted before and those the 403 named: "+strings.Join(want, " "), fmt.Sprintf("scope=%q", strings.Join(asked, " ")), *forbidden, again[0])
	}
	return nil
}
