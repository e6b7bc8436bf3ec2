package oauth

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/conform-mcp/conform/impl/role"
	"github.com/conform-mcp/conform/impl/store"
)

// authorizeParams are the authorization request parameters (RFC 6749 section
// 4.1.1 with RFC 7636 section 4.3) that travel from the request to the
// consent form and back.
var authorizeParams = []string{"response_type", "client_id", "redirect_uri", "state",
	"code_challenge", "code_challenge_method", "scope"}

// authorizeRequest is an authorization request that passed validation.
type authorizeRequest struct {
	client      store.Client
	redirectURI string
	state       string
	challenge   string
}

// checkAuthorize validates an authorization request. Until the client and
// redirect URI are known good, errors are shown on a page and never
// redirected (RFC 6749 section 4.1.2.1: the server "MUST NOT automatically
// redirect the user-agent to the invalid redirection URI"); after that they
// go back to the client as a redirect. It writes the answer itself when the
// request fails.
func (s *Server) checkAuthorize(w http.ResponseWriter, r *http.Request, v url.Values, redirectStatus int) (authorizeRequest, bool) {
	fail := func(msg string) (authorizeRequest, bool) {
		writePage(w, http.StatusBadRequest, page{Title: "Authorization request not valid", Error: true, Message: msg})
		return authorizeRequest{}, false
	}
	for _, name := range authorizeParams {
		if len(v[name]) > 1 {
			return fail("The parameter " + name + " is repeated.")
		}
	}
	if err := s.ensureMetadataClient(r, v.Get("client_id")); err != nil {
		return fail("The application's client metadata document cannot be used: " + err.Error())
	}
	now := s.clock.Now()
	var client store.Client
	var known bool
	if err := s.store.View(func(tx *store.Tx) error {
		var err error
		client, known, err = lookupClient(tx, v.Get("client_id"), now)
		return err
	}); err != nil {
		s.log.Error("authorization request", "err", err)
		writePage(w, failedStatus(w, err), page{Title: "Something went wrong", Error: true,
			Message: "The request could not be loaded. Try again."})
		return authorizeRequest{}, false
	}
	if !known {
		return fail("The application is not registered here (unknown client_id). It must register again.")
	}
	ar := authorizeRequest{client: client, redirectURI: v.Get("redirect_uri"), state: v.Get("state"),
		challenge: v.Get("code_challenge")}
	if ar.redirectURI == "" || !redirectRegistered(client.RedirectURIs, ar.redirectURI) {
		return fail("The redirect_uri is missing or not registered for this application.")
	}
	redirectErr := func(e *oauthError) (authorizeRequest, bool) {
		s.redirect(w, r, ar, redirectStatus, url.Values{"error": {e.Code}, "error_description": {e.Description}})
		return authorizeRequest{}, false
	}
	// RFC 8707 section 2: a token for another resource is never issued here.
	if e := s.checkResource(r, v); e != nil {
		return redirectErr(e)
	}
	switch rt := v.Get("response_type"); {
	case rt == "":
		return redirectErr(badRequest(errInvalidRequest, "Missing response_type"))
	case rt != "code":
		return redirectErr(badRequest(errUnsupportedRespType, "Only response_type=code is supported"))
	case !allowsGrant(client, grantAuthCode):
		return redirectErr(badRequest(errUnauthorizedClient, "The client did not register for the authorization_code grant"))
	// PKCE is required of every client: they are all public (RFC 7636
	// section 1, OAuth 2.0 Security BCP section 2.1.1), and only S256.
	case ar.challenge == "":
		return redirectErr(badRequest(errInvalidRequest, "Missing code_challenge; PKCE with S256 is required"))
	case v.Get("code_challenge_method") != "S256":
		return redirectErr(badRequest(errInvalidRequest, "code_challenge_method must be S256"))
	case !validChallenge(ar.challenge):
		return redirectErr(badRequest(errInvalidRequest, "code_challenge must be the base64url SHA-256 of the code_verifier"))
	}
	return ar, true
}

// redirect sends the authorization response to the client's redirect URI,
// with iss so the client can tell which server answered (RFC 9207).
func (s *Server) redirect(w http.ResponseWriter, r *http.Request, ar authorizeRequest, status int, params url.Values) {
	u, err := url.Parse(ar.redirectURI)
	if err != nil { // registered URIs were parsed at registration
		writePage(w, http.StatusBadRequest, page{Title: "Authorization request not valid", Error: true,
			Message: "The redirect_uri cannot be used."})
		return
	}
	q := u.Query()
	for k, vs := range params {
		q[k] = vs
	}
	if ar.state != "" {
		q.Set("state", ar.state)
	}
	q.Set("iss", s.base.Of(r))
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u.String(), status)
}

// handleAuthorizePage is GET /oauth/authorize (RFC 6749 section 4.1.1): once
// the owner has signed in, it shows the consent page for a valid request.
func (s *Server) handleAuthorizePage(w http.ResponseWriter, r *http.Request) {
	if s.refuseThrottled(w, r, s.clock.Now()) {
		return
	}
	session, signedIn := s.ownerSession(r)
	if !signedIn {
		askOwner(w, r)
		return
	}
	ar, ok := s.checkAuthorize(w, r, r.URL.Query(), http.StatusFound)
	if !ok {
		return
	}
	csrf, err := s.newForm(session, ar.binding())
	if err != nil {
		s.log.Error("show authorization consent", "err", err)
		failed(w, err)
		return
	}
	hidden := []hiddenField{
		{"response_type", "code"},
		{"client_id", ar.client.ID},
		{"redirect_uri", ar.redirectURI},
		{"state", ar.state},
		{"code_challenge", ar.challenge},
		{"code_challenge_method", "S256"},
		{"scope", r.URL.Query().Get("scope")},
		{"csrf", csrf},
	}
	writePage(w, http.StatusOK, page{Title: "Approve access",
		Consent: newConsentView("authorize", ar.client, r.URL.Query().Get("scope"), hidden...)})
}

// binding is what an authorization consent form decides: this client, this
// redirect, this state and this PKCE challenge, each length-prefixed.
func (ar authorizeRequest) binding() string {
	var b strings.Builder
	b.WriteString("authorize")
	for _, p := range []string{ar.client.ID, ar.redirectURI, ar.state, ar.challenge} {
		fmt.Fprintf(&b, ":%d:%s", len(p), p)
	}
	return b.String()
}

// handleAuthorizeDecision is POST /oauth/authorize: the owner's decision on
// the consent page, answered by redirecting to the client with a code or with
// error=access_denied (RFC 6749 section 4.1.2). Like the device decision it
// needs a same-origin request, the owner's session and a form rendered for
// them, once.
func (s *Server) handleAuthorizeDecision(w http.ResponseWriter, r *http.Request) {
	now := s.clock.Now()
	if s.refuseThrottled(w, r, now) || !readConsentForm(w, r) {
		return
	}
	if !s.sameOrigin(r) {
		s.wrongTry(r, now, "")
		writePage(w, http.StatusForbidden, crossSite)
		return
	}
	session, signedIn := s.ownerSession(r)
	if !signedIn {
		s.wrongTry(r, now, "")
		writePage(w, http.StatusForbidden, notAccepted)
		return
	}
	ar, ok := s.checkAuthorize(w, r, r.PostForm, http.StatusSeeOther)
	if !ok {
		return
	}
	roleName, action := r.PostForm.Get("role"), r.PostForm.Get("action")
	if !role.Known(roleName) || (action != "approve" && action != "deny") {
		writePage(w, http.StatusBadRequest, page{Title: "Request not understood", Error: true,
			Message: "Choose a role and press Approve or Deny."})
		return
	}
	var formOK bool
	if err := s.store.Update(func(tx *store.Tx) error {
		var err error
		formOK, err = spendForm(tx, r.PostForm.Get("csrf"), session, ar.binding(), now)
		return err
	}); err != nil {
		s.log.Error("record authorization consent", "err", err)
		failed(w, err)
		return
	}
	if !formOK {
		s.wrongTry(r, now, "")
		writePage(w, http.StatusForbidden, notAccepted)
		return
	}
	if action == "deny" {
		s.redirect(w, r, ar, http.StatusSeeOther, url.Values{"error": {errAccessDenied},
			"error_description": {"The person denied the request"}})
		return
	}
	code := randomString(32)
	err := s.store.Update(func(tx *store.Tx) error {
		return tx.PutAuthCode(store.DigestOf(code), store.AuthCode{
			ClientID:    ar.client.ID,
			RedirectURI: ar.redirectURI,
			Challenge:   ar.challenge,
			Role:        roleName,
			IssuedAt:    now,
			ExpiresAt:   now.Add(authCodeLifetime),
			GrantID:     randomString(16),
		})
	})
	if err != nil {
		s.log.Error("issue authorization code", "err", err)
		writePage(w, failedStatus(w, err), page{Title: "Something went wrong", Error: true,
			Message: "Your decision could not be recorded. Try again."})
		return
	}
	s.redirect(w, r, ar, http.StatusSeeOther, url.Values{"code": {code}})
}

// authorizationCodeGrant redeems an authorization code (RFC 6749 section
// 4.1.3) with its PKCE verifier (RFC 7636 section 4.5). A code is single use:
// presenting it again, with its own client, redirect URI and verifier,
// revokes everything it issued (RFC 6749 section 4.1.2,
// "the authorization server ... SHOULD revoke (when possible) all tokens
// previously issued based on that authorization code").
func (s *Server) authorizationCodeGrant(req tokenRequest) (*tokenResponse, *oauthError) {
	code, redirectURI, verifier := req.form.Get("code"), req.form.Get("redirect_uri"), req.form.Get("code_verifier")
	for _, p := range [][2]string{{"code", code}, {"redirect_uri", redirectURI},
		{"code_verifier", verifier}, {"client_id", req.clientID}} {
		if p[1] == "" {
			return nil, badRequest(errInvalidRequest, "Missing "+p[0])
		}
	}
	invalid := badRequest(errInvalidGrant, "Invalid or expired authorization code")
	digest := store.DigestOf(code)
	var resp *tokenResponse
	var oerr *oauthError
	err := s.viewThenUpdate(func(tx *store.Tx, write bool) (bool, error) {
		resp, oerr = nil, nil
		ac, ok, err := tx.AuthCode(digest)
		if err != nil {
			return false, err
		}
		if ok && ac.Redeemed {
			// A replay with invalid parameters revokes nothing: anyone who
			// saw the code could send it (OAuth 2.1 section 7.5.3, "SHOULD
			// NOT revoke any issued tokens when receiving a replayed
			// authorization code that contains invalid parameters").
			if req.clientID != ac.ClientID || redirectURI != ac.RedirectURI || !validVerifier(verifier) || !verifierMatches(verifier, ac.Challenge) {
				oerr = invalid
				return true, nil
			}
			// A valid replay revokes the grant: that is a change, made once
			// the read-write transaction runs.
			if !write {
				return false, nil
			}
			oerr = badRequest(errInvalidGrant, "Authorization code already used; what it issued is revoked")
			s.log.Warn("authorization code replayed", "client_id", ac.ClientID)
			return true, revokeGrant(tx, ac.GrantID)
		}
		if !ok || !req.now.Before(ac.ExpiresAt) {
			oerr = invalid
			return true, nil
		}
		switch {
		case req.clientID != ac.ClientID:
			oerr = badRequest(errInvalidGrant, "The authorization code was issued to another client")
			return true, nil
		case redirectURI != ac.RedirectURI:
			oerr = badRequest(errInvalidGrant, "redirect_uri does not match the authorization request")
			return true, nil
		case !validVerifier(verifier) || !verifierMatches(verifier, ac.Challenge):
			oerr = badRequest(errInvalidGrant, "code_verifier does not match the code_challenge")
			return true, nil
		}
		client, ok, err := lookupClient(tx, ac.ClientID, req.now)
		if err != nil {
			return false, err
		}
		if !ok {
			oerr = invalid
			return true, nil
		}
		if !write {
			return false, nil
		}
		ac.Redeemed = true
		if err := tx.PutAuthCode(digest, ac); err != nil {
			return false, err
		}
		resp, err = s.issue(tx, client, ac.Role, ac.GrantID, req.now,
			grantOutput{ttl: authCodeAccessLifetime, withRefresh: allowsGrant(client, grantRefreshToken)})
		return true, err
	})
	if err != nil {
		s.log.Error("authorization code grant", "err", err)
		return nil, serverError(err)
	}
	return resp, oerr
}

// revokeGrant deletes every credential and refresh token of one authorization.
func revokeGrant(tx *store.Tx, grantID string) error {
	var creds, refresh []store.Digest
	if err := tx.Credentials(func(d store.Digest, c store.Credential) error {
		if c.GrantID == grantID {
			creds = append(creds, d)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := tx.RefreshTokens(func(d store.Digest, rt store.RefreshToken) error {
		if rt.GrantID == grantID {
			refresh = append(refresh, d)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, d := range creds {
		if err := tx.DeleteCredential(d); err != nil {
			return err
		}
	}
	for _, d := range refresh {
		if err := tx.DeleteRefreshToken(d); err != nil {
			return err
		}
	}
	return nil
}
