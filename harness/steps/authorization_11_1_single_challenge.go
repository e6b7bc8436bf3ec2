package steps

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/outcome"
)

// stepUp is what a scenario's step-up authorization asked for: the scopes
// the first insufficient_scope challenge named, and the union it asked the
// authorization server for.
type stepUp struct {
	first, asked []string
}

// steppedUpToken is the step-up of authorization.11.1.2: from the last
// reply's insufficient_scope challenge, a new token for "the union of the
// client's previously requested scope set and the scopes from the current
// challenge", the limited token's scope being the set held before. The
// limited token's scope is read from it as a JWT (RFC 9068 2.2.3); when it
// cannot be, the union cannot be formed and the scenario is not run, as it
// is when the authorization cannot be set up.
func (st *authzState) steppedUpToken(ctx context.Context) error {
	_, c, err := st.challengeToRead()
	if err != nil {
		return err
	}
	first := strings.Fields(c.Params["scope"])
	if c.Params["error"] != "insufficient_scope" || len(first) == 0 {
		return st.skip("the refusal carries no insufficient_scope challenge naming a scope (SCOPE-3 judges that), so there is no step-up to ask for")
	}
	claims, _ := oauthclient.Claims(st.Target.Tokens.Limited)
	held, ok := claims["scope"].(string)
	if !ok && st.Target.Tokens.LimitedScope != "" {
		// The token response that issued it said what it holds.
		held, ok = st.Target.Tokens.LimitedScope, true
	}
	if !ok {
		return st.skip("the limited token's scope cannot be read (it is no JWT with a scope claim, RFC 9068 2.2.3), so the union of the scope it holds and the challenge's, " +
			"which a step-up asks for (authorization.11.1.2), cannot be formed")
	}
	asked := strings.Fields(held)
	for _, s := range first {
		if !slices.Contains(asked, s) {
			asked = append(asked, s)
		}
	}
	if err := st.publicClient(ctx); err != nil {
		return err
	}
	st.authz.as.scope = strings.Join(asked, " ")
	// What goes wrong in the step-up is the authorization server's, which
	// other scenarios judge: here it only leaves the check unable to run.
	for _, step := range []func(context.Context) error{st.codeIssued, st.redeemedForToken} {
		if err := step(ctx); err != nil {
			var d *outcome.Departure
			if errors.As(err, &d) {
				return st.skip(fmt.Sprintf("the step-up authorization could not be set up: %s, expected %s, but actual is %s", d.Check, d.Expected, d.Actual))
			}
			return err
		}
	}
	token, _ := st.authz.as.token.String("access_token")
	st.authz.stepUp = stepUp{first: first, asked: asked}
	st.auth = "Bearer " + token
	return nil
}

// noLaterScope is SCOPE-4: "servers SHOULD include all scopes required for
// the current operation in a single challenge" (authorization.11.1.1). With
// a token holding every scope the first challenge named, the same request
// is served, or challenged again only for what that token holds (the
// authorization server may grant less than asked, which is no departure of
// the resource server's). A challenge for a scope the first one left out is
// the departure. Another refusal says nothing about the challenge.
func (st *authzState) noLaterScope() error {
	h, err := st.needLast()
	if err != nil {
		return err
	}
	up := st.authz.stepUp
	switch {
	case h.status/100 == 2:
		return nil
	case h.status != http.StatusForbidden:
		return st.skip(fmt.Sprintf("the request with the stepped-up token answered %s, neither served nor refused for its scope (TOK-6 and SCOPE-1 judge those answers)", h.describe()))
	}
	c := bearerIn(h.header.Values("WWW-Authenticate"))
	if c == nil || c.Params["error"] != "insufficient_scope" {
		return st.skip("the request with the stepped-up token was refused 403 without an insufficient_scope challenge (SCOPE-3 judges the challenge)")
	}
	var later []string
	for _, s := range strings.Fields(c.Params["scope"]) {
		if !slices.Contains(up.asked, s) {
			later = append(later, s)
		}
	}
	if len(later) == 0 {
		return st.skip(fmt.Sprintf("the second challenge names no scope beyond %q, which the step-up asked for: the authorization server may have granted less than asked", strings.Join(up.asked, " ")))
	}
	return st.depart("the insufficient_scope challenge (authorization.11.1.1: \"servers SHOULD include all scopes required for the current operation in a single challenge\")",
		"the first challenge naming every scope the request needs",
		fmt.Sprintf("the second challenge, to a token holding %q, names %s; the first named %s only", strings.Join(up.asked, " "), strings.Join(later, " "), strings.Join(up.first, " ")),
		h.lastExchange())
}
