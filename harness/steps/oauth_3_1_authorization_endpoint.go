package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/oauthclient"
)

// unknownParam is a parameter no specification defines, which the
// authorization server "MUST ignore" (OAuth 2.1 3.1).
const unknownParam = "conform_unknown"

// withUnknownParam sends the valid authorization request with unknownParam
// added.
func (st *authzState) withUnknownParam(ctx context.Context) error {
	return st.sendEdited(ctx, nil, func(q url.Values) { q.Set(unknownParam, "1") })
}

// withEmptyScope sends the valid authorization request with scope= (no
// value), which "MUST be treated as if" it were omitted (OAuth 2.1 3.1).
func (st *authzState) withEmptyScope(ctx context.Context) error {
	return st.sendEdited(ctx, func(r *oauthclient.AuthorizationRequest) { r.Scope = "" }, func(q url.Values) { q.Set("scope", "") })
}

// withoutResponseType sends the valid authorization request with
// response_type left out, which OAuth 2.1 4.1.1 makes REQUIRED.
func (st *authzState) withoutResponseType(ctx context.Context) error {
	return st.sendEdited(ctx, nil, func(q url.Values) { q.Del("response_type") })
}

// undecided leaves the scenario not run when the authorization endpoint's
// answer cannot be read: a page the approval command failed on, or one no
// approval command was given to follow.
func (st *authzState) undecided(a *authorizeAnswer) error {
	switch {
	case a.redirected:
		return nil
	case a.approvalErr != nil:
		return st.skip(fmt.Sprintf("the authorization endpoint answered %s and the approval command (oauth.authorization_approval_command) failed: %v", a.describe(), a.approvalErr))
	case st.Target.ApproveAuthorization == nil && (a.status == http.StatusOK || a.status/100 == 3):
		return st.skip(fmt.Sprintf("the authorization endpoint answered %s, which may be a consent page: set oauth.authorization_approval_command so the suite can see where it leads", a.describe()))
	}
	return nil
}

// takesGET: "The authorization server MUST support the use of the HTTP GET
// method" at the authorization endpoint (OAuth 2.1 3.1). Only a refusal of
// the method departs; any other answer, a page or a redirect or an error
// about the request, took the GET. A server error says nothing of methods.
func (st *authzState) takesGET() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	switch {
	case a.status == http.StatusMethodNotAllowed || a.status == http.StatusNotImplemented:
		return st.depart("authorization endpoint (OAuth 2.1 3.1: \"MUST support the use of the HTTP GET method\")", "the request taken by GET", fmt.Sprintf("GET answered %s", a.describe()), a.ex)
	case a.status >= 500:
		return st.skip(fmt.Sprintf("the authorization endpoint answered the valid request %s, a server error, which says nothing of the methods it takes", a.describe()))
	}
	return nil
}

// answersWithCode: the request the scenario sent differs from the valid one
// only in what the server must ignore or accept, so it gets a code as the
// valid one did; check names the request and the sentence.
func (st *authzState) answersWithCode(check string) error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	if err := st.undecided(a); err != nil {
		return err
	}
	if a.redirected && a.params.Get("code") != "" {
		return nil
	}
	return st.depart(check, "a code, as the valid request got", a.describe(), a.ex)
}

// outcomeOf is what an authorization answer came to: "code", "error=" and
// its code, or "" when it cannot be told.
func outcomeOf(a *authorizeAnswer) string {
	switch {
	case a == nil || !a.redirected:
		return ""
	case a.params.Get("code") != "":
		return "code"
	case a.params.Get("error") != "":
		return "error=" + a.params.Get("error")
	}
	return ""
}

// codeOrInvalidScope: "If the client omits the scope parameter ..., the
// authorization server MUST either process the request using a pre-defined
// default value or fail the request indicating an invalid scope" (OAuth 2.1
// 1.4.1). An error page, not redirected, says no error code and is not
// judged.
func (st *authzState) codeOrInvalidScope() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	if err := st.undecided(a); err != nil {
		return err
	}
	switch outcomeOf(a) {
	case "code", "error=invalid_scope":
		return nil
	case "":
		if a.status/100 == 4 {
			return st.skip(fmt.Sprintf("the authorization endpoint answered %s, a page that names no error code, so whether it indicated an invalid scope cannot be read", a.describe()))
		}
	}
	return st.depart("authorization response without scope (OAuth 2.1 1.4.1)", "a code (a default scope) or error=invalid_scope", a.describe(), a.ex)
}

// answeredAsWithout: "Parameters sent without a value MUST be treated as if
// they were omitted from the request" (OAuth 2.1 3.1): scope= is answered as
// the request without scope was.
func (st *authzState) answeredAsWithout() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	before, now := outcomeOf(st.authz.as.previous), outcomeOf(a)
	if before == "" || now == "" {
		return st.skip("one of the two authorization answers was no redirect to the redirect_uri, so they cannot be compared")
	}
	if before != now {
		return st.depart("authorization response to scope= (OAuth 2.1 3.1: \"Parameters sent without a value MUST be treated as if they were omitted\")",
			"the answer the request without scope got: "+before, now+" ("+a.location+")", a.ex)
	}
	return nil
}

// The response parameters OAuth 2.1 defines: of the authorization response
// (4.1.2, 4.1.2.1) and of the token response (3.2.3, 3.2.4). Only these
// are held to being sent once; a parameter of the redirect URI's own query,
// or one another specification defines, is not.
var (
	authorizationResponseParams = []string{"code", "state", "iss", "error", "error_description", "error_uri"}
	tokenResponseParams         = []string{"access_token", "token_type", "expires_in", "scope", "refresh_token", "error", "error_description", "error_uri"}
)

// paramsOnce: "Request and response parameters defined by this
// specification MUST NOT be included more than once" (OAuth 2.1 3.1).
func (st *authzState) paramsOnce() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	var repeated []string
	for k, vs := range a.params {
		if len(vs) > 1 && slices.Contains(authorizationResponseParams, k) {
			repeated = append(repeated, fmt.Sprintf("%s %d times", k, len(vs)))
		}
	}
	if len(repeated) > 0 {
		slices.Sort(repeated)
		return st.depart("authorization response (OAuth 2.1 3.1: parameters \"MUST NOT be included more than once\")", "each parameter once",
			strings.Join(repeated, ", ")+" in "+a.location, a.ex)
	}
	return nil
}

// tokenMembersOnce: the same rule for the token response (OAuth 2.1 3.2),
// read from the raw JSON, where a decoded object would keep one of two
// members.
func (st *authzState) tokenMembersOnce() error {
	r, err := st.needToken()
	if err != nil {
		return err
	}
	repeated, err := repeatedMembers(r.Body)
	if err != nil {
		return st.skip("the token response is no JSON object to read: " + err.Error())
	}
	if len(repeated) > 0 {
		return st.depart("token response (OAuth 2.1 3.2: parameters \"MUST NOT be included more than once\")", "each member once",
			"repeated: "+strings.Join(repeated, ", "), r.Exchange)
	}
	return nil
}

// repeatedMembers returns the token response members OAuth 2.1 defines
// that a JSON object names more than once.
func repeatedMembers(body []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("no JSON object")
	}
	seen := map[string]bool{}
	var repeated []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		if seen[k] && slices.Contains(tokenResponseParams, k) && !slices.Contains(repeated, k) {
			repeated = append(repeated, k)
		}
		seen[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return repeated, nil
}

// answeredWithPage: the authorization endpoint answered with a page (200
// text/html), not a redirect: only a page can be framed.
func (st *authzState) answeredWithPage() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	if a.status != http.StatusOK || !strings.HasPrefix(http.Header(a.ex.ResponseHeader).Get("Content-Type"), "text/html") {
		return st.depart("answer of the authorization endpoint", "a page (HTTP 200, text/html)", a.describe(), a.ex)
	}
	return nil
}

// framingForbidden: "authorization servers SHOULD also use Content
// Security Policy (CSP) level 2 or greater" against clickjacking (OAuth 2.1
// 7.10); the directive that forbids framing is frame-ancestors.
func (st *authzState) framingForbidden() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	policies := http.Header(a.ex.ResponseHeader).Values("Content-Security-Policy")
	for _, v := range policies {
		for d := range strings.SplitSeq(v, ";") {
			if f := strings.Fields(d); len(f) > 0 && strings.EqualFold(f[0], "frame-ancestors") {
				return nil
			}
		}
	}
	return st.depart("authorization page (OAuth 2.1 7.10: \"SHOULD also use Content Security Policy\")", "a Content-Security-Policy with frame-ancestors",
		fmt.Sprintf("%q", policies), a.ex)
}
