package fakeauthz

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// The fake authorization server's token endpoint (OAuth 2.1 3.2, 4.1.3, 4.3).

func (h *Host) token(w http.ResponseWriter, r *http.Request) {
	if wait := h.tokenThrottle(); wait != "" {
		w.Header().Set("Retry-After", wait)
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": "too_many_requests", "error_description": "too many token requests"})
		return
	}
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_request"})
		return
	}
	f := r.PostForm
	basicID, basicSecret, basic := r.BasicAuth()
	if refusal := h.tokenRequestRefusal(f, basic); refusal != nil {
		writeJSON(w, http.StatusBadRequest, refusal)
		return
	}
	invalid := func(desc string) {
		if h.breaks[ErrorTextOutsideCharset] {
			desc += ` ("é")`
		}
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": desc})
	}
	clientID := f.Get("client_id")
	if clientID == "" && basic {
		clientID = basicID
	}
	if h.breaks[ConfidentialOnly] && clientID != ConfidentialID {
		// Public clients are not served; ConfidentialID's secret is checked
		// below, by HTTP Basic or in the body (OAuth 2.1 2.4.1).
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_client", "error_description": "only confidential clients are served"})
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.clientAuthenticated(w, f, clientID, basic, basicID, basicSecret) {
		return
	}
	var g grant
	noRefresh := false
	switch f.Get("grant_type") {
	case "authorization_code":
		c, ok := h.codes[f.Get("code")]
		switch {
		case !ok:
			invalid("unknown or used code")
			return
		case c.used && !h.breaks[CodeReusable]:
			// A replay: OAuth 2.1 4.1.3 asks to revoke what the code issued,
			// 7.5.3 not to when the replay carries invalid parameters.
			valid := verifierMatches(c, f.Get("code_verifier"))
			if valid && !h.breaks[CodeReplayKeepsTokens] || !valid && h.breaks[InvalidReplayRevokes] {
				h.revokeFamily(c.family)
			}
			invalid("unknown or used code")
			return
		case c.clientID != clientID && !h.breaks[CodeClientUnbound]:
			invalid("code issued to another client")
			return
		case c.redirectURI != f.Get("redirect_uri") && h.breaks[TokenRedirectWrongError]:
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_request", "error_description": "redirect_uri differs"})
			return
		case c.redirectURI != f.Get("redirect_uri") && !h.breaks[TokenRedirectIgnored]:
			invalid("redirect_uri differs")
			return
		case c.challenge == "" && h.breaks[ChallengeEnforcedAtToken]:
			invalid("the authorization request sent no code_challenge")
			return
		case c.plain && f.Get("code_verifier") != c.challenge:
			invalid("code_verifier does not match")
			return
		case c.challenge != "" && !c.plain && !h.breaks[VerifierNotChecked] && !verifierMatches(c, f.Get("code_verifier")):
			invalid("code_verifier does not match")
			return
		}
		c.used, c.family = true, random()
		g = grant{clientID: c.clientID, resource: c.resource, scope: ScopeTools + " " + ScopeWrite, family: c.family}
		if h.breaks[ScopeNarrowedSilently] {
			g.scope = ScopeTools
		}
		noRefresh = (h.breaks[RefreshOnlyOfflineAccess] || h.breaks[RefreshOnlyOfflineAccessUnadvertised]) && !hasScope(c.scope, "offline_access")
	case "refresh_token":
		rt := f.Get("refresh_token")
		old, ok := h.refresh[rt]
		family, rotatedOut := h.rotated[rt]
		if !ok && rotatedOut && !h.breaks[RotationReplayKeepsGrant] {
			h.revokeFamily(family)
		}
		if !ok && !rotatedOut && h.breaks[RefreshAnyToken] {
			old, ok = grant{clientID: clientID, resource: h.Endpoint(), scope: ScopeTools + " " + ScopeWrite, family: random()}, true
		}
		if !ok || h.breaks[RefreshRefused] || (old.clientID != clientID && !h.breaks[RefreshClientUnbound]) {
			invalid("unknown or used refresh_token, or another client's")
			return
		}
		if _, asked := f["scope"]; asked && f.Get("scope") == "" && h.breaks[EmptyScopeRefused] {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_scope", "error_description": "scope is empty"})
			return
		}
		if g, ok = h.refreshResource(old, f.Get("resource")); !ok {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_target", "error_description": "the refresh token is for another resource"})
			return
		}
		if !h.breaks[RefreshNotRotated] && !h.breaks[RefreshReplayAccepted] {
			delete(h.refresh, rt)
			h.rotated[rt] = g.family
		}
		g.scope = h.refreshScope(g.scope, f.Get("scope"))
	default:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "unsupported_grant_type"})
		return
	}
	if g.resource == "" {
		g.resource = h.Endpoint()
	}
	access, refresh := h.accessToken(g), random()
	h.tokens[access] = g
	resp := map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600, "scope": g.scope}
	if h.breaks[NoExpiresIn] {
		delete(resp, "expires_in")
	}
	if h.breaks[ScopeNarrowedSilently] && f.Get("grant_type") == "authorization_code" {
		delete(resp, "scope")
	}
	if h.breaks[AccessTokenMissing] {
		delete(resp, "access_token")
	}
	if !(h.breaks[RefreshNotRotated] && f.Get("grant_type") == "refresh_token") && !noRefresh {
		h.refresh[refresh] = g
		resp["refresh_token"] = refresh
	}
	if !h.breaks[TokenCacheable] {
		w.Header().Set("Cache-Control", "no-store")
	}
	writeJSON(w, http.StatusOK, resp)
}

// tokenRequestRefusal is the error body of a token request a variant
// refuses before looking at its grant, or nil.
func (h *Host) tokenRequestRefusal(f url.Values, basic bool) map[string]any {
	if h.breaks[TokenUnknownParamRefused] {
		for k := range f {
			if !slices.Contains(tokenParams, k) {
				return map[string]any{"error": "invalid_request", "error_description": "unknown parameter " + k}
			}
		}
	}
	if h.breaks[TwoMethodsRefused] && basic && f.Has("client_id") {
		return map[string]any{"error": "invalid_request", "error_description": "multiple client authentication methods"}
	}
	return nil
}

// tokenParams are the token request's parameters the fake knows (OAuth 2.1
// 3.2.2, 4.1.3, 4.3.1, 2.4.1; RFC 8707).
var tokenParams = []string{"grant_type", "code", "redirect_uri", "code_verifier", "client_id", "client_secret",
	"refresh_token", "scope", "resource"}

// clientAuthenticated checks a confidential client's secret (OAuth 2.1
// 3.2.2: "require client authentication for confidential clients"), by
// HTTP Basic or in the body (2.4.1), and answers the failure itself: 401
// with a Basic challenge when Basic was tried (3.2.4), else 400. Public
// clients pass. The caller holds h.mu.
func (h *Host) clientAuthenticated(w http.ResponseWriter, f url.Values, clientID string, basic bool, basicID, basicSecret string) bool {
	secret, confidential := h.secrets[clientID]
	if !confidential || h.breaks[SecretNotChecked] {
		return true
	}
	fail := func(status int) bool {
		if status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Basic realm="token"`)
		}
		writeJSON(w, status, map[string]any{"error": "invalid_client", "error_description": "client authentication failed"})
		return false
	}
	switch {
	case basic && h.breaks[SecretBodyOnly] && clientID == ConfidentialID:
		return fail(http.StatusUnauthorized)
	case basic && basicID == clientID && basicSecret == secret:
		return true
	case basic && h.breaks[BasicFailureNoChallenge]:
		return fail(http.StatusBadRequest)
	case basic:
		return fail(http.StatusUnauthorized)
	case f.Has("client_secret") && f.Get("client_secret") == secret && !h.breaks[SecretPostRefused]:
		return true
	}
	return fail(http.StatusBadRequest)
}

// refreshScope is the scope a refresh asking for asked obtains from a grant
// of scope granted: the grant's, whatever is asked (asking for less does not
// narrow a grant, OAuth 2.1 4.3.3), unless a variant widens or narrows it.
func (h *Host) refreshScope(granted, asked string) string {
	switch {
	case asked == "":
		return granted
	case h.breaks[RefreshWidens]:
		kept := strings.Fields(granted)
		for _, s := range strings.Fields(asked) {
			if !slices.Contains(kept, s) {
				kept = append(kept, s)
			}
		}
		return strings.Join(kept, " ")
	case h.breaks[RefreshWidensAdvertised]:
		var kept []string
		for _, s := range strings.Fields(asked) {
			if slices.Contains([]string{ScopeTools, ScopeWrite, "openid"}, s) {
				kept = append(kept, s)
			}
		}
		if len(kept) > 0 {
			return strings.Join(kept, " ")
		}
	case h.breaks[RefreshNarrowsRefreshToken]:
		for _, s := range strings.Fields(asked) {
			if !hasScope(granted, s) {
				return granted
			}
		}
		return asked
	}
	return granted
}

// verifierMatches says whether code_verifier redeems c: equal to its
// challenge for plain (RFC 7636 4.2), its S256 hash otherwise.
func verifierMatches(c *code, verifier string) bool {
	if c.plain {
		return verifier == c.challenge
	}
	return verifier != "" && s256(verifier) == c.challenge
}

func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// tokenThrottle is the Retry-After a token request is refused with under
// TokenThrottled, TokenThrottledOnce or TokenThrottledBriefly, "" when it is
// served.
func (h *Host) tokenThrottle() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tokenRequests++
	wait := ""
	switch {
	case h.breaks[TokenThrottled], h.breaks[TokenThrottledOnce] && h.tokenRequests == 1:
		wait = "3600"
	case h.breaks[TokenThrottledBriefly] && h.tokenRequests%4 == 0:
		wait = "1"
	}
	if wait != "" {
		h.tokensThrottled++
	}
	return wait
}
