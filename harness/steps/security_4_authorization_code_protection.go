package steps

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/wire"
)

func (st *authzState) asMethodListed(method string) error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	if !slices.Contains(md.Strings("code_challenge_methods_supported"), method) {
		return st.depart("code_challenge_methods_supported (security.4)", "a list including "+method,
			wire.JSONText(md.Reply.JSON["code_challenge_methods_supported"]), md.Reply.Exchange)
	}
	return nil
}

func (st *authzState) asMethodNotListed(method string) error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	if slices.Contains(md.Strings("code_challenge_methods_supported"), method) {
		return st.skip("the metadata lists " + method + " among code_challenge_methods_supported, and OAuth 2.1 lets a server that lists it accept it")
	}
	return nil
}

// authorizationRefused: a refusal is a redirect to the redirect_uri with
// error (OAuth 2.1 section 4.1.2.1), or an error status; a code is an
// acceptance. A server that knows the implicit grant answers
// response_type=token in the fragment (RFC 6749 4.2.2.1): an error there
// refuses too, and a token there is the acceptance 7.1.3.7 forbids ("Bearer
// tokens MUST NOT be passed in page URLs"). A page the harness cannot
// follow without the approval command leaves the scenario not run.
func (st *authzState) authorizationRefused() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	fragment := fragmentOf(a.location)
	switch {
	case a.redirected && (a.params.Get("code") != "" || fragment.Get("code") != ""):
		return st.depart("authorization response", "a refusal: a redirect to the redirect_uri with error, or a 4xx", "a code: "+a.location, a.ex)
	case a.redirected && fragment.Get("access_token") != "":
		return st.depart("authorization response (OAuth 2.1 7.1.3.7)", "a refusal: a redirect to the redirect_uri with error, or a 4xx", "an access_token in the fragment of the redirect to the redirect_uri", a.ex)
	case a.redirected && (a.params.Get("error") != "" || fragment.Get("error") != ""):
		return nil
	case a.status >= 400 && a.status < 500:
		return nil
	case a.approvalErr != nil:
		// Whether the server refused after a sign-in or the command failed
		// on its own cannot be told apart.
		return st.skip(fmt.Sprintf("the authorization endpoint answered %s and the approval command (oauth.authorization_approval_command) failed: %v", a.describe(), a.approvalErr))
	case !a.redirected && st.Target.ApproveAuthorization == nil && (a.status == http.StatusOK || a.status/100 == 3):
		return st.skip(fmt.Sprintf("the authorization endpoint answered %s, which may be a consent page: set oauth.authorization_approval_command so the suite can see where it leads", a.describe()))
	}
	return st.depart("authorization response", "a refusal: a redirect to the redirect_uri with error, or a 4xx", a.describe(), a.ex)
}

// fragmentOf returns the parameters of location's fragment, none when it
// has none or does not parse.
func fragmentOf(location string) url.Values {
	u, err := url.Parse(location)
	if err != nil {
		return url.Values{}
	}
	v, err := url.ParseQuery(u.EscapedFragment())
	if err != nil {
		return url.Values{}
	}
	return v
}

func (st *authzState) tokenIssued() error {
	r, err := st.needToken()
	if err != nil {
		return err
	}
	if tok, _ := r.String("access_token"); r.Status != http.StatusOK || tok == "" {
		return st.depart("token response (OAuth 2.1 3.2.3)", "HTTP 200 with an access_token", describeOAuth(r), r.Exchange)
	}
	return nil
}

func (st *authzState) tokenRefused(code string) error {
	r, err := st.needToken()
	if err != nil {
		return err
	}
	got, _ := r.String("error")
	want := "an error response (HTTP 400 with error)"
	if code != "" {
		want = fmt.Sprintf("HTTP 400 with error %q", code)
	}
	if got == "invalid_client" {
		// The client, not the request under test, was refused: a set-up
		// the profile may mend (OAuth 2.1 3.2.4, client authentication).
		return st.skip(fmt.Sprintf("the token endpoint refused the client itself (%s), not the request under test; %s", describeOAuth(r), st.tokenRemedy(r)))
	}
	if r.Status < 400 || r.Status >= 500 || got == "" || (code != "" && got != code) {
		return st.depart("token response (OAuth 2.1 3.2.4)", want, describeOAuth(r), r.Exchange)
	}
	return nil
}

// tokenResponseSafe: the token response names its token_type (REQUIRED)
// and carries Cache-Control: no-store (OAuth 2.1 3.2.3: "The authorization
// server MUST include the HTTP Cache-Control response header field ... with
// a value of no-store in any response containing tokens").
func (st *authzState) tokenResponseSafe() error {
	r, err := st.needToken()
	if err != nil {
		return err
	}
	var missing []string
	if tt, _ := r.String("token_type"); tt == "" {
		missing = append(missing, "token_type")
	}
	noStore := false
	for _, v := range r.Header.Values("Cache-Control") {
		for d := range strings.SplitSeq(v, ",") {
			noStore = noStore || strings.EqualFold(strings.TrimSpace(d), "no-store")
		}
	}
	if !noStore {
		missing = append(missing, "Cache-Control: no-store")
	}
	if len(missing) > 0 {
		return st.depart("token response (OAuth 2.1 3.2.3)", "token_type and Cache-Control: no-store", "no "+strings.Join(missing, ", no "), r.Exchange)
	}
	return nil
}

// authorizationErrorIs: "If the server does not support the requested
// code_challenge_method transformation, the authorization endpoint MUST
// return the authorization error response with error value set to
// invalid_request" (OAuth 2.1 4.1.2.1). A code issued instead is redeemed
// with the challenge as its verifier: refused, the method was ignored, a
// departure; served, the server supports plain, which OAuth 2.1 4.1.1 lets
// a client learn of out of band, so the sentence does not bind it and the
// scenario is not run, its metadata's silence notwithstanding.
func (st *authzState) authorizationErrorIs(ctx context.Context, want string) error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	const check = "authorization error response (OAuth 2.1 4.1.2.1)"
	expected := fmt.Sprintf("a redirect to the redirect_uri with error=%s", want)
	switch {
	case a.redirected && a.params.Get("error") == want:
		return nil
	case a.redirected && a.params.Get("error") != "":
		return st.depart(check, expected, a.describe(), a.ex)
	case a.redirected && a.params.Get("code") != "":
		sent := st.authz.as.sent
		served, how, err := st.redeemPlain(ctx, a.params.Get("code"), sent.RedirectURI, sent.Challenge)
		if err != nil {
			return err
		}
		if !served {
			return st.depart(check, expected, fmt.Sprintf("a code: %s; its code was %s with code_verifier equal to the challenge, so the method was ignored", a.location, how), a.ex)
		}
		// Served with the challenge as its verifier: support for plain,
		// unless the server serves any verifier, which checks nothing.
		other, _ := oauthclient.PKCE()
		code, why := st.plainCode(ctx)
		if code == "" {
			return st.skip("the code issued for plain was redeemed with code_verifier equal to the challenge, but whether the server supports plain or checks no verifier at all cannot be told: " + why)
		}
		served, how, err = st.redeemPlain(ctx, code, sent.RedirectURI, other)
		if err != nil {
			return err
		}
		if served {
			return st.depart(check, expected, fmt.Sprintf("a code: %s; it was redeemed with code_verifier equal to the challenge, and a second code for plain was %s with a code_verifier unequal to its challenge, "+
				"so the server checks no code_verifier and does not support plain", a.location, how), a.ex)
		}
		return st.skip("the authorization server supports plain, though its code_challenge_methods_supported does not list it: " +
			"the code it issued was redeemed with code_verifier equal to the challenge, and a second one refused with another, and OAuth 2.1 4.1.2.1 asks invalid_request only of a server that does not support the method")
	case a.approvalErr != nil:
		return st.skip(fmt.Sprintf("the authorization endpoint answered %s and the approval command (oauth.authorization_approval_command) failed: %v", a.describe(), a.approvalErr))
	case !a.redirected && st.Target.ApproveAuthorization == nil && (a.status == http.StatusOK || a.status/100 == 3):
		return st.skip(fmt.Sprintf("the authorization endpoint answered %s, which may be a consent page: set oauth.authorization_approval_command so the suite can see where it leads", a.describe()))
	}
	return st.depart(check, expected, a.describe(), a.ex)
}

// redeemPlain redeems a code issued for code_challenge_method plain with
// verifier, and says whether a token came, and how the endpoint answered. A
// redemption still throttled after a short Retry-After says neither, and
// the error leaves the scenario not run (sendToken).
func (st *authzState) redeemPlain(ctx context.Context, code, redirectURI, verifier string) (bool, string, error) {
	as := &st.authz.as
	endpoint := as.md.String("token_endpoint")
	form := oauthclient.CodeForm(code, as.clientID, redirectURI, verifier, st.endpoint())
	r, err := st.obeyRetryAfter(ctx, "token request", func() (*oauthclient.Reply, error) {
		return as.secret.Token(ctx, st.Target.HTTP, endpoint, form)
	})
	switch {
	case err != nil:
		return false, "not answered (" + err.Error() + ")", nil
	case r.Throttled():
		return false, "", st.skipThrottled(r, "token request at "+endpoint, "")
	}
	if tok, _ := r.String("access_token"); r.Status == http.StatusOK && tok != "" {
		st.hide(tok)
		return true, "served", nil
	}
	return false, "refused (" + describeOAuth(r) + ")", nil
}

// plainCode obtains a second code for code_challenge_method plain, leaving
// the scenario's authorization answer as it was; "" and why when none came.
func (st *authzState) plainCode(ctx context.Context) (string, string) {
	as := &st.authz.as
	resp, sent := as.resp, as.sent
	defer func() { as.resp, as.sent = resp, sent }()
	if err := st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.Method = "plain" }); err != nil {
		return "", "a second authorization request for plain failed: " + err.Error()
	}
	if code := as.resp.params.Get("code"); as.resp.redirected && code != "" {
		return code, ""
	}
	return "", "a second authorization request for plain was answered " + as.resp.describe()
}

// redeemAsSecond redeems the client's code as the second client, which it
// was not issued to.
func (st *authzState) redeemAsSecond(ctx context.Context) error {
	as := &st.authz.as
	if err := st.needCode(); err != nil {
		return err
	}
	return st.sendToken(ctx, oauthclient.CodeForm(as.code, as.second, st.redirectURI(), as.verify, st.endpoint()), as.secondSecret)
}

// needCode is the harness error of a scenario that redeems a code before
// it has one.
func (st *authzState) needCode() error {
	if st.authz.as.code == "" {
		return fmt.Errorf("no authorization code yet")
	}
	return nil
}

// tokenRefusal judges a refused token request: any refusal, one with the
// error code, or, when the request may also be served, a refusal's code
// only (refusalIs).
func (st *authzState) tokenRefusal(code, ifAtAll string) error {
	if ifAtAll != "" {
		return st.refusalIs(ifAtAll)
	}
	return st.tokenRefused(code)
}

// challengeHidden: the server "MUST NOT include the code_challenge value in
// a response parameter in a form that entities other than the AS can
// extract" (OAuth 2.1 4.1.2; RFC 7636 4.4). A parameter that contains it,
// or decodes (base64url or base64, whole or between dots) to something
// that contains it or the hash it encodes, gives it away.
func (st *authzState) challengeHidden() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	challenge := st.authz.as.sent.Challenge
	if challenge == "" {
		return fmt.Errorf("no code_challenge sent")
	}
	hash, _ := base64.RawURLEncoding.DecodeString(challenge)
	for k, vs := range a.params {
		for _, v := range vs {
			if how := carriesChallenge(v, challenge, hash); how != "" {
				return st.depart("authorization response (OAuth 2.1 4.1.2: the code_challenge is not to be included \"in a form that entities other than the AS can extract\")",
					"no parameter that carries the code_challenge", fmt.Sprintf("%s carries the code_challenge %s", k, how), a.ex)
			}
		}
	}
	return nil
}

// carriesChallenge says how v carries the challenge, or "".
func carriesChallenge(v, challenge string, hash []byte) string {
	if strings.Contains(v, challenge) {
		return "verbatim"
	}
	for _, part := range append([]string{v}, strings.Split(v, ".")...) {
		for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding} {
			b, err := enc.DecodeString(part)
			if err != nil {
				continue
			}
			if bytes.Contains(b, []byte(challenge)) || len(hash) > 0 && bytes.Contains(b, hash) {
				return "once base64-decoded"
			}
		}
	}
	return ""
}

// missingChallengeError: "If the server requires PKCE by OAuth public
// clients and the client does not send the code_challenge in the request,
// the authorization endpoint MUST return the authorization error response
// with the error value set to invalid_request" (RFC 7636 4.4.1). A code
// shows the server does not require it (PKCE-2 judges that); a refusal on a
// page, not redirected, names no error to read.
func (st *authzState) missingChallengeError() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	if st.Target.Profile.MCPAuthorization.ClientSecret() != "" {
		return st.skip("the profile's client is confidential (mcp_authorization.client_secret_env), and RFC 7636 4.4.1 binds the server for public clients")
	}
	if err := st.undecided(a); err != nil {
		return err
	}
	switch e := a.params.Get("error"); {
	case a.redirected && e == "invalid_request":
		return nil
	case a.redirected && e != "":
		return st.depart("authorization error response (RFC 7636 4.4.1)", "error=invalid_request for a request without code_challenge", a.describe(), a.ex)
	case a.redirected && a.params.Get("code") != "":
		return st.skip("the authorization server issued a code without code_challenge, so it does not require PKCE of this client, the case RFC 7636 4.4.1 is about (PKCE-2 judges it)")
	}
	return st.skip(fmt.Sprintf("the authorization endpoint answered %s, not a redirect, which names no error code to read (PKCE-2 judges the refusal)", a.describe()))
}

// confidentialClient is the scenario's client, which must be confidential:
// the profile's with its secret, else the one the run registered when the
// server made it confidential (RFC 7591 3.2.1). A server whose metadata
// advertises none alone serves public clients only (RFC 8414 2), so a
// confidential client's rule does not apply to it.
func (st *authzState) confidentialClient(ctx context.Context) error {
	if err := st.usableAS(ctx); err != nil {
		return err
	}
	if st.Target.Profile.MCPAuthorization.ClientSecret() == "" {
		if err := st.publicClientsOnly("code_challenge enforced, OAuth 2.1 7.5.2"); err != nil {
			return err
		}
	}
	if err := st.publicClient(ctx); err != nil {
		return err
	}
	if st.authz.as.secret.Value == "" {
		return st.skip(fmt.Sprintf("the client %q is a public client (it holds no client secret), and the rule binds the authorization server for confidential clients: "+
			"set mcp_authorization.client_id and mcp_authorization.client_secret_env to a confidential client registered with redirect_uri %s", st.authz.as.clientID, st.redirectURI()))
	}
	return nil
}

// confidentialChallengeEnforced: for a confidential client, "using and
// enforcing code_challenge and code_verifier is still RECOMMENDED" (OAuth
// 2.1 7.5.2, 4.1.1), even where the server may waive them. The server
// enforces them by refusing the request (4.1.2.1: "MUST reject such
// requests from other clients unless...") or, having issued a code, by
// refusing its redemption (4.1.3: "If there was no code_challenge in the
// authorization request associated with the authorization code in the
// token request, the authorization server MUST reject the token request"):
// either passes (codeWithoutVerifierRefused).
func (st *authzState) confidentialChallengeEnforced(ctx context.Context) error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	code := a.params.Get("code")
	if !a.redirected || code == "" {
		// Not a code: judged as any refusal is.
		return st.authorizationRefused()
	}
	form := oauthclient.CodeForm(code, st.authz.as.clientID, st.redirectURI(), "", st.endpoint())
	form.Del("code_verifier")
	if err := st.tokenRequest(ctx, form); err != nil {
		return err
	}
	st.hearToken()
	return st.codeWithoutVerifierRefused(a)
}

// codeWithoutVerifierRefused judges the token endpoint's answer to the
// redemption without code_verifier of the code a issued: a token departs,
// and any 4xx refuses it, as a 4xx refuses the request itself
// (authorizationRefused). The sentences PKCE-6 cites ask a rejection, not
// the shape of its error response, which OAuth 2.1 3.2.4's requirements
// judge. invalid_client, a refusal of the client rather than the code, and
// an answer that is neither a token nor a 4xx, are as tokenRefused has them.
func (st *authzState) codeWithoutVerifierRefused(a *authorizeAnswer) error {
	r, err := st.needToken()
	if err != nil {
		return err
	}
	if tok, _ := r.String("access_token"); r.Status == http.StatusOK && tok != "" {
		return st.depart(`code_challenge enforced for a confidential client (OAuth 2.1 7.5.2: "using and enforcing code_challenge and code_verifier is still RECOMMENDED"; 4.1.3)`,
			"a refusal of the request without code_challenge, or of its code at the token endpoint",
			fmt.Sprintf("a code (%s), redeemed for an access token without code_verifier: %s", a.location, describeOAuth(r)), a.ex, r.Exchange)
	}
	if got, _ := r.String("error"); r.Status/100 == 4 && got != "invalid_client" {
		return nil
	}
	return st.tokenRefused("")
}
