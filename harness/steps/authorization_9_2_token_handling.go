package steps

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/conform-mcp/conform/harness/authcode"
	"github.com/conform-mcp/conform/harness/wire"
)

func (st *authzState) sendProtected(ctx context.Context) error {
	r := st.protected()
	reply, err := st.MCP.Call(ctx, st.auth, r.Method, st.protectedParams(r))
	return st.took(reply, err)
}

// withExpiredToken presents the profile's expired token, unless it is a
// readable JWT whose exp is still ahead: then it has not expired, and the
// scenario's premise is false.
func (st *authzState) withExpiredToken() error {
	token := st.Target.Tokens.Expired
	if exp, ok := jwtExpiry(token); ok && exp.After(time.Now()) {
		return st.skip(fmt.Sprintf("the token mcp_authorization.expired_token_env names is a JWT whose exp, %s, is still ahead: it has not expired; put an expired one there",
			exp.UTC().Format(time.RFC3339)))
	}
	return st.withToken(token, "expired-token")
}

// jwtExpiry reads the exp claim of a token that is a JWT with a readable
// payload (RFC 7519 4.1.4); ok is false for any other token.
func jwtExpiry(token string) (time.Time, bool) {
	claims, ok := authcode.Claims(token)
	exp, isNumber := claims["exp"].(float64)
	if !ok || !isNumber {
		return time.Time{}, false
	}
	return time.Unix(int64(exp), 0), true
}

func (st *authzState) withToken(token, capability string) error {
	if token == "" {
		return st.skip(st.Target.Lacks(capability))
	}
	st.auth = "Bearer " + token
	return nil
}

// served is TOK-6: the credential issued for the server is served, which
// the refusals of TOK-3 to TOK-5 need as their control. A 403 (insufficient
// permissions, authorization.11) leaves it not run: the credential may lack
// what this request needs.
func (st *authzState) served() error {
	if err := st.needReply(); err != nil {
		return err
	}
	switch {
	case st.reply.Status == http.StatusForbidden:
		return st.skip("the target's credential was refused 403, insufficient permissions for " + st.protected().Method +
			": set mcp_authorization.protected_request to a request the credential may make")
	case st.reply.Status/100 != 2:
		return st.depart("HTTP status", "the request served with a 2xx", describe(st.reply), st.reply.Last())
	}
	return nil
}

// controlServed is the positive control of a refusal: the same request with
// the credential the server issued is served, so a refusal of another token
// is known to be about the token. When it is not, the scenario is not run
// (TOK-6 judges the credential's own answer).
func (st *authzState) controlServed(ctx context.Context) error {
	if st.Target.Credential == "" {
		return st.skip(st.Target.Lacks("credential") + ": a refusal is judged only after the valid request was shown to be served")
	}
	r := st.protected()
	reply, err := st.MCP.Call(ctx, "Bearer "+st.Target.Credential, r.Method, st.protectedParams(r))
	if err := st.took(reply, err); err != nil {
		return err
	}
	if reply.Status/100 != 2 {
		return st.skip(fmt.Sprintf("the control failed: the request that needs authorization, sent with the target's credential, answered %s, "+
			"so a refusal of another token would say nothing (TOK-6 judges it); set mcp_authorization.protected_request to a request the credential may make",
			describe(reply)))
	}
	st.reply, st.last = nil, nil
	return nil
}

// sendWithQueryToken sends the request that needs authorization with the
// target's credential only in the URI query, as access_token (RFC 6750's
// query form, which OAuth 2.1 removed): resource servers "MUST ignore access
// tokens in a URI query parameter" (OAuth 2.1 section 5.1).
func (st *authzState) sendWithQueryToken(ctx context.Context) error {
	client, err := st.queryTokenClient()
	if err != nil {
		return err
	}
	r := st.protected()
	reply, err := client.Call(ctx, "", r.Method, st.protectedParams(r))
	return st.took(reply, err)
}

// tamperedCredential presents the target's credential with one character in
// the middle of its last dot-separated part changed: for a signed token that
// is its signature, and in the middle every bit of a base64 character
// counts, so the token is no longer the one issued.
func (st *authzState) tamperedCredential() error {
	c := st.Target.Credential
	if c == "" {
		return st.skip(st.Target.Lacks("credential"))
	}
	start := strings.LastIndex(c, ".") + 1
	if start >= len(c) {
		start = 0
	}
	i := start + (len(c)-start)/2
	b := []byte(c)
	if b[i] == 'A' {
		b[i] = 'Q'
	} else {
		b[i] = 'A'
	}
	st.auth = "Bearer " + string(b)
	return nil
}

// challengeToRead leaves a check of what the challenge says not run when
// there is no Bearer challenge with auth-params to read: TOK-1 to TOK-3
// judge that, once.
func (st *authzState) challengeToRead() error {
	if err := st.needReply(); err != nil {
		return err
	}
	if c := st.bearer("WWW-Authenticate"); c == nil || len(c.Params) == 0 {
		return st.skip("the 401 carries no Bearer challenge with auth-params to read (TOK-1 to TOK-3 judge the challenge)")
	}
	return nil
}

// refusedWithoutToken is the premise of TOK-7: the request is refused when
// it carries no token at all, so serving it with a token in the query
// could only be the query's doing. TOK-1 judges a server that serves it.
func (st *authzState) refusedWithoutToken(ctx context.Context) error {
	r := st.protected()
	reply, err := st.MCP.Call(ctx, "", r.Method, st.protectedParams(r))
	if err := st.took(reply, err); err != nil {
		return err
	}
	if reply.Status/100 == 2 {
		return st.skip(fmt.Sprintf("the request that needs authorization was served without any token (%s), which TOK-1 judges", describe(reply)))
	}
	st.reply, st.last = nil, nil
	return nil
}

// challengeNamesScope: MCP servers "SHOULD include a scope parameter in the
// WWW-Authenticate header" (authorization, Scope Selection Strategy).
func (st *authzState) challengeNamesScope() error {
	if err := st.challengeToRead(); err != nil {
		return err
	}
	if strings.TrimSpace(st.bearer("WWW-Authenticate").Params["scope"]) == "" {
		return st.depart("WWW-Authenticate header (authorization, Scope Selection Strategy)", "a Bearer challenge with a scope",
			strings.Join(st.reply.Header.Values("WWW-Authenticate"), ", "), st.reply.Last())
	}
	return nil
}

// challengeError: a request that carried a token that failed SHOULD get the
// error attribute (RFC 6750 section 3), invalid_token for a token that is
// invalid (OAuth 2.1 section 5.3.2).
func (st *authzState) challengeError(want string) error {
	if err := st.challengeToRead(); err != nil {
		return err
	}
	if got := st.bearer("WWW-Authenticate").Params["error"]; got != want {
		return st.depart("error of the Bearer challenge (RFC 6750 3, OAuth 2.1 5.3.2)", fmt.Sprintf("error=%q", want),
			strings.Join(st.reply.Header.Values("WWW-Authenticate"), ", "), st.reply.Last())
	}
	return nil
}

// challengeWithoutError: "If the request lacks any authentication
// information ... the resource server SHOULD NOT include an error code or
// other error information" (OAuth 2.1 section 5.3.2).
func (st *authzState) challengeWithoutError() error {
	if err := st.challengeToRead(); err != nil {
		return err
	}
	if e := st.bearer("WWW-Authenticate").Params["error"]; e != "" {
		return st.depart("Bearer challenge to a request without a token (OAuth 2.1 5.3.2)", "no error code",
			strings.Join(st.reply.Header.Values("WWW-Authenticate"), ", "), st.reply.Last())
	}
	return nil
}

// refusedAsMalformed: RFC 6750 3.1 answers a malformed request
// invalid_request, which SHOULD be 400, while MCP's authorization.11 lists
// 401 for an invalid token; either is a refusal. Either carries the Bearer
// challenge: the resource server "MUST include the HTTP WWW-Authenticate
// response header field" when the request "does not contain an access token
// that enables access" (OAuth 2.1 section 5.3.1).
func (st *authzState) refusedAsMalformed() error {
	if err := st.needReply(); err != nil {
		return err
	}
	switch st.reply.Status {
	case http.StatusBadRequest, http.StatusUnauthorized:
		return st.isBearerChallenge("WWW-Authenticate")
	}
	return st.depart("HTTP status (RFC 6750 3.1, authorization.11)", "400 or 401", describe(st.reply), st.reply.Last())
}

// bearer returns the first Bearer challenge of the reply, or nil.
func (st *authzState) bearer(header string) *wire.Challenge {
	return bearerIn(st.reply.Header.Values(header))
}

// isBearerChallenge is the Bearer scheme's own rule for a challenge header
// (bearerChallenge).
func (st *authzState) isBearerChallenge(header string) error {
	return st.bearerChallenge(header, "", "")
}
