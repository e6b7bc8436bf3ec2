package steps

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/wire"
)

func (st *authzState) sendProtected(ctx context.Context) error {
	r := st.protected()
	reply, err := st.MCP.Call(ctx, st.auth, r.Method, st.protectedParams(r))
	if err != nil && st.auth != "" && st.answersAnonymously(ctx) {
		// The server answers the same request without the token, so
		// closing this one unanswered was its answer to the token: a
		// resource server refuses a token with a status and a challenge
		// (RFC 6750 3, OAuth 2.1 5.3), never by hanging up.
		return st.depart("an answer to the token presented (RFC 6750 3, OAuth 2.1 5.3)", "an HTTP response: a refusal with a status and a Bearer challenge",
			"no answer ("+err.Error()+"), while the same request without a token is answered", exchangesOf(reply)...)
	}
	return st.took(reply, err)
}

// answersAnonymously says whether the server answers the request that needs
// authorization sent without a token, with any status: it is still there.
func (st *authzState) answersAnonymously(ctx context.Context) bool {
	r := st.protected()
	_, err := st.MCP.Call(ctx, "", r.Method, st.protectedParams(r))
	return err == nil
}

// exchangesOf is what a reply recorded, none when there is no reply.
func exchangesOf(r *mcpclient.Reply) []wire.Exchange {
	if r == nil {
		return nil
	}
	return r.Exchanges
}

// withExpiredToken presents the profile's expired token when there is
// evidence that it has expired (expiredEvidence): a token the server still
// serves is no departure from TOK-4 unless it has in fact expired, and an
// opaque token says nothing of that on its own.
func (st *authzState) withExpiredToken(ctx context.Context) error {
	token := st.Target.Tokens.Expired
	if token == "" {
		return st.skip(st.Target.Lacks("expired-token"))
	}
	if why := st.notShownExpired(ctx, token); why != "" {
		return st.skip(why)
	}
	return st.withToken(token, "expired-token")
}

// notShownExpired says why token is not shown to have expired, "" when it
// is: by a readable JWT's exp in the past (RFC 7519 4.1.4); else by the
// authorization server's introspection saying it is not active (RFC 7662
// 2.2); else by the time the profile (or the harness, which made it
// expire) says it expired.
func (st *authzState) notShownExpired(ctx context.Context, token string) string {
	now := time.Now()
	if exp, ok := jwtExpiry(token); ok {
		if exp.After(now) {
			return fmt.Sprintf("the token mcp_authorization.expired_token_env names is a JWT whose exp, %s, is still ahead: it has not expired; put an expired one there",
				exp.UTC().Format(time.RFC3339))
		}
		return ""
	}
	in := st.introspect(ctx, token)
	switch {
	case in.stated && !in.active:
		return ""
	case in.stated:
		return fmt.Sprintf("the authorization server's introspection endpoint %s says the token mcp_authorization.expired_token_env names is active (RFC 7662 2.2): "+
			"it has not expired; put an expired one there", in.endpoint)
	}
	if at := st.Target.Tokens.ExpiredAt; !at.IsZero() {
		if at.After(now) {
			return fmt.Sprintf("mcp_authorization.expired_token_expired_at says the token expires at %s, still ahead: it has not expired", at.UTC().Format(time.RFC3339))
		}
		return ""
	}
	return "the token mcp_authorization.expired_token_env names shows no evidence that it has expired: it is no JWT with an exp, " + in.why +
		", and mcp_authorization.expired_token_expired_at does not say when it expired; set it, so that a token the server still serves is not failed for having been called expired"
}

// jwtExpiry reads the exp claim of a token that is a JWT with a readable
// payload (RFC 7519 4.1.4); ok is false for any other token.
func jwtExpiry(token string) (time.Time, bool) {
	claims, ok := oauthclient.Claims(token)
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
	h, err := st.needLast()
	if err != nil {
		return err
	}
	// Only a refusal of the target's own credential can be its death
	// mid-run; a token a scenario obtained is judged as it is answered.
	if h.status/100 != 2 && st.auth == "Bearer "+st.Target.Credential {
		if died := st.credentialDied(h.describe()); died != "" {
			return st.skip(died)
		}
	}
	switch {
	case h.status == http.StatusForbidden:
		return st.skip("the target's credential was refused 403, insufficient permissions for " + st.protected().Method +
			": set mcp_authorization.protected_request to a request the credential may make")
	case h.status/100 != 2:
		return st.depart("HTTP status", "the request served with a 2xx", h.describe(), h.lastExchange())
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
	return st.control(ctx, "Bearer "+st.Target.Credential, func(reply *mcpclient.Reply) string {
		if reply.Status/100 == 2 {
			return ""
		}
		// Served at the start of the run: whatever refuses it now is the
		// credential's death mid-run, said as the cause.
		if died := st.credentialDied(describe(reply)); died != "" {
			return "the control failed: " + died
		}
		if reply.Status == http.StatusUnauthorized {
			// A 401 refuses the token itself (RFC 6750 3.1), whatever the
			// request: another protected_request would fare no better.
			return fmt.Sprintf("the control failed: the server refuses the target's credential itself (%s), so a refusal of another token would say nothing (TOK-6 judges it): "+
				"the credential has expired or was revoked (an authorization server may revoke a client's earlier tokens when the same client is authorized again), "+
				"or this server never accepted it; give a fresh one in credential_env, or set oauth.authorization_approval_command so that the harness obtains one", describe(reply))
		}
		return fmt.Sprintf("the control failed: the request that needs authorization, sent with the target's credential, answered %s, "+
			"so a refusal of another token would say nothing (TOK-6 judges it); set mcp_authorization.protected_request to a request the credential may make",
			describe(reply))
	})
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

// challengeToRead returns the last reply and its Bearer challenge, and
// leaves a check of what the challenge says not run when there is no Bearer
// challenge with auth-params to read: TOK-1 to TOK-3 judge that, once.
func (st *authzState) challengeToRead() (*heard, *wire.Challenge, error) {
	h, err := st.needLast()
	if err != nil {
		return nil, nil, err
	}
	c := bearerIn(h.header.Values("WWW-Authenticate"))
	if c == nil || len(c.Params) == 0 {
		return nil, nil, st.skip("the 401 carries no Bearer challenge with auth-params to read (TOK-1 to TOK-3 judge the challenge)")
	}
	return h, c, nil
}

// challengeSays judges what the Bearer challenge of the last reply says:
// that it names a scope, carries no error, carries the error errCode, or
// leaves out the scope lacks.
func (st *authzState) challengeSays(what, errCode, lacks string) error {
	switch {
	case what == "names a scope":
		return st.challengeNamesScope()
	case what == "carries no error":
		return st.challengeWithoutError()
	case errCode != "":
		return st.challengeError(errCode)
	}
	return st.challengeScopeLacks(lacks)
}

// refusedWithoutToken is the premise of TOK-7: the request is refused when
// it carries no token at all, so serving it with a token in the query
// could only be the query's doing. TOK-1 judges a server that serves it.
func (st *authzState) refusedWithoutToken(ctx context.Context) error {
	return st.control(ctx, "", func(reply *mcpclient.Reply) string {
		if reply.Status/100 != 2 {
			return ""
		}
		return fmt.Sprintf("the request that needs authorization was served without any token (%s), which TOK-1 judges", describe(reply))
	})
}

// challengeNamesScope: MCP servers "SHOULD include a scope parameter in the
// WWW-Authenticate header" (authorization, Scope Selection Strategy).
func (st *authzState) challengeNamesScope() error {
	h, c, err := st.challengeToRead()
	if err != nil {
		return err
	}
	if strings.TrimSpace(c.Params["scope"]) == "" {
		return st.depart("WWW-Authenticate header (authorization, Scope Selection Strategy)", "a Bearer challenge with a scope",
			strings.Join(h.header.Values("WWW-Authenticate"), ", "), h.lastExchange())
	}
	return nil
}

// challengeError: a request that carried a token that failed SHOULD get the
// error attribute (RFC 6750 section 3), invalid_token for a token that is
// invalid (OAuth 2.1 section 5.3.2).
func (st *authzState) challengeError(want string) error {
	h, c, err := st.challengeToRead()
	if err != nil {
		return err
	}
	if got := c.Params["error"]; got != want {
		return st.depart("error of the Bearer challenge (RFC 6750 3, OAuth 2.1 5.3.2)", fmt.Sprintf("error=%q", want),
			strings.Join(h.header.Values("WWW-Authenticate"), ", "), h.lastExchange())
	}
	return nil
}

// challengeWithoutError: "If the request lacks any authentication
// information ... the resource server SHOULD NOT include an error code or
// other error information" (OAuth 2.1 section 5.3.2).
func (st *authzState) challengeWithoutError() error {
	h, c, err := st.challengeToRead()
	if err != nil {
		return err
	}
	if e := c.Params["error"]; e != "" {
		return st.depart("Bearer challenge to a request without a token (OAuth 2.1 5.3.2)", "no error code",
			strings.Join(h.header.Values("WWW-Authenticate"), ", "), h.lastExchange())
	}
	return nil
}

// refusedAsMalformed: RFC 6750 3.1 answers a malformed request
// invalid_request, which SHOULD be 400, while MCP's authorization.11 lists
// 401 for an invalid token; either is a refusal. Either carries the Bearer
// challenge: the resource server "MUST include the HTTP WWW-Authenticate
// response header field" when the request "does not contain an access token
// that enables access" (OAuth 2.1 section 5.3.1), by the Bearer scheme's own
// rule (bearerChallenge).
func (st *authzState) refusedAsMalformed() error {
	h, err := st.needLast()
	if err != nil {
		return err
	}
	switch h.status {
	case http.StatusBadRequest, http.StatusUnauthorized:
		return st.bearerChallenge("WWW-Authenticate", "", "")
	}
	return st.depart("HTTP status (RFC 6750 3.1, authorization.11)", "400 or 401", h.describe(), h.lastExchange())
}

// withOtherResourceToken presents the profile's token issued for another
// resource when it is shown to be for another resource: by introspection's
// aud (RFC 7662 2.2), when the authorization server can be asked, else
// unless the pre-flight could not show it bound to that resource.
func (st *authzState) withOtherResourceToken(ctx context.Context) error {
	token := st.Target.Tokens.OtherResource
	if token == "" {
		return st.skip(st.Target.Lacks("other-resource-token"))
	}
	in := st.introspect(ctx, token)
	aud := introspectedAudience(in.reply)
	switch {
	case in.stated && !in.active:
		return st.skip(fmt.Sprintf("the authorization server's introspection endpoint %s says the token for another resource is not active (RFC 7662 2.2), "+
			"so a refusal of it would say nothing of its audience; put an active token issued for another resource in mcp_authorization.other_resource_token_env", in.endpoint))
	case in.stated && slices.Contains(aud, st.endpoint()):
		return st.skip(fmt.Sprintf("the authorization server's introspection endpoint %s says the token for another resource has aud %q, which names this server: "+
			"it is no token for another resource; put one in mcp_authorization.other_resource_token_env", in.endpoint, aud))
	case in.stated && len(aud) > 0:
		// Introspection shows it bound to another resource.
		return st.withToken(token, "other-resource-token")
	}
	if why := st.Target.Tokens.OtherResourceUnproven; why != "" {
		return st.skip("the token obtained for mcp_authorization.other_resource is not shown to be bound to that resource: " + why +
			"; audience binding holds \"when the Authorization Server supports the capability\" (security.1), so put a token issued for another resource in mcp_authorization.other_resource_token_env" +
			", or let the suite introspect it (" + in.why + ")")
	}
	return st.withToken(token, "other-resource-token")
}

// introspectedAudience is the aud of an introspection answer, a string or an
// array of them (RFC 7662 2.2, RFC 7519 4.1.3).
func introspectedAudience(r *oauthclient.Reply) []string {
	if r == nil {
		return nil
	}
	return oauthclient.Audience(r.JSON)
}
