package fakeauthz

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/target"
)

// code is an issued authorization code.
type code struct {
	clientID, redirectURI, challenge, resource string
	// plain: the challenge is the verifier itself (RFC 7636 4.2), for
	// PlainHonoured.
	plain, used bool
}

// serveAuthorization is the authorization server: OpenID Connect Discovery
// with path insertion only, dynamic registration, an authorization endpoint
// that approves at once (it asks no person), and the token endpoint.
func (h *Host) serveAuthorization(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/.well-known/openid-configuration/tenant" && !h.breaks[ASMetadataMissing]:
		h.serveASMetadata(w)
	case r.Method == http.MethodPost && r.URL.Path == "/tenant/register":
		h.register(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/tenant/authorize":
		h.authorize(w, r)
	case r.Method == http.MethodOptions && r.URL.Path == "/tenant/authorize":
		h.preflight(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/tenant/token":
		h.token(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (h *Host) serveASMetadata(w http.ResponseWriter) {
	iss := h.Issuer()
	doc := map[string]any{
		"issuer":                                         iss,
		"authorization_endpoint":                         iss + "/authorize",
		"token_endpoint":                                 iss + "/token",
		"registration_endpoint":                          iss + "/register",
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none"},
		"scopes_supported":                               []string{ScopeTools, ScopeWrite, "openid"},
		"subject_types_supported":                        []string{"public"},
		"id_token_signing_alg_values_supported":          []string{"RS256"},
		"jwks_uri":                                       iss + "/jwks",
		"authorization_response_iss_parameter_supported": true,
		"client_id_metadata_document_supported":          true,
	}
	if h.breaks[RegistrationUnreachable] {
		doc["registration_endpoint"] = "http://127.0.0.1:1/register"
	}
	if h.breaks[ASIssuerMismatch] {
		doc["issuer"] = h.AS.URL
	}
	if h.breaks[ASEndpointsMissing] {
		delete(doc, "authorization_endpoint")
	}
	if h.breaks[S256NotAdvertised] {
		delete(doc, "code_challenge_methods_supported")
	}
	if h.breaks[IssNotAdvertised] {
		delete(doc, "authorization_response_iss_parameter_supported")
	}
	if h.breaks[CIMDNotAdvertised] {
		delete(doc, "client_id_metadata_document_supported")
	}
	if h.breaks[ResponseTypesMissing] {
		delete(doc, "response_types_supported")
	}
	if h.breaks[ConfidentialOnly] {
		doc["token_endpoint_auth_methods_supported"] = []string{"client_secret_basic"}
	}
	if h.breaks[PlainHTTPEndpoint] {
		doc["revocation_endpoint"] = "http://as.conform.invalid/tenant/revoke"
	}
	if h.breaks[NoRegistration] {
		delete(doc, "registration_endpoint")
	}
	writeJSON(w, http.StatusOK, doc)
}

func (h *Host) register(w http.ResponseWriter, r *http.Request) {
	if h.breaks[RegistrationThrottled] {
		w.Header().Set("Retry-After", "60")
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": "slow_down", "error_description": "too many registrations"})
		return
	}
	if h.breaks[RegistrationProtected] {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_token"})
		return
	}
	var body struct {
		RedirectURIs    []string `json:"redirect_uris"`
		ApplicationType string   `json:"application_type"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body); err != nil || len(body.RedirectURIs) == 0 || h.breaks[RegistrationRefused] || h.breaks[ConfidentialOnly] {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_redirect_uri", "error_description": "redirect_uris is required"})
		return
	}
	for _, u := range body.RedirectURIs {
		if p, err := url.Parse(u); !h.breaks[RegistrationAnyRedirect] && (err != nil || p.Fragment != "" || strings.Contains(u, "#") ||
			(p.Scheme != "https" && !(p.Scheme == "http" && net.ParseIP(p.Hostname()) != nil && net.ParseIP(p.Hostname()).IsLoopback()))) {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_redirect_uri", "error_description": "redirect URIs must be loopback or https, without a fragment"})
			return
		}
	}
	if h.breaks[RegistrationBroken] {
		writeJSON(w, http.StatusOK, map[string]any{"redirect_uris": body.RedirectURIs})
		return
	}
	id := random()
	h.mu.Lock()
	h.clients[id] = body.RedirectURIs
	h.native[id] = body.ApplicationType == "native"
	h.registered++
	h.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": body.RedirectURIs, "token_endpoint_auth_method": "none"})
}

// authorize validates the request (OAuth 2.1 4.1.1, 4.1.2.1) and approves it.
func (h *Host) authorize(w http.ResponseWriter, r *http.Request) {
	if h.breaks[AuthorizationEndpointDown] {
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	if h.breaks[ConsentPage] {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html><body><form method=post><button>Allow</button></form></body></html>")
		return
	}
	if h.breaks[CORSAllowed] {
		w.Header().Set("Access-Control-Allow-Origin", "*")
	}
	q := r.URL.Query()
	h.mu.Lock()
	uris, known := h.clients[q.Get("client_id")]
	native := h.native[q.Get("client_id")]
	h.mu.Unlock()
	if !known && h.breaks[UnknownClientRedirected] {
		uris, known = []string{q.Get("redirect_uri")}, true
	}
	redirectURI := q.Get("redirect_uri")
	registered := slices.Contains(uris, redirectURI) || (!h.breaks[LoopbackPortFixed] && (native || !h.breaks[LoopbackPortsNativeOnly]) && slices.ContainsFunc(uris, func(u string) bool { return samePortless(u, redirectURI) }))
	if h.breaks[RedirectPrefixMatched] {
		registered = registered || slices.ContainsFunc(uris, func(u string) bool { return strings.HasPrefix(redirectURI, u) })
	}
	if !known || !registered {
		http.Error(w, "unknown client or redirect_uri not registered", http.StatusBadRequest)
		return
	}
	back := func(params url.Values) {
		u, _ := url.Parse(redirectURI)
		v := u.Query()
		for k, vs := range params {
			v[k] = vs
		}
		if s := q.Get("state"); s != "" {
			if h.breaks[StateNotEchoed] {
				s = strings.ToLower(strings.ReplaceAll(s, " ", "_"))
			}
			v.Set("state", s)
		}
		if !h.breaks[IssMissing] {
			v.Set("iss", h.Issuer())
		}
		u.RawQuery = v.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	}
	switch {
	case q.Get("response_type") != "code" && !h.breaks[ResponseTypeIgnored]:
		back(url.Values{"error": {"unsupported_response_type"}})
		return
	case q.Get("code_challenge") == "" && !h.breaks[ChallengeNotRequired]:
		back(url.Values{"error": {"invalid_request"}, "error_description": {"code_challenge required"}})
		return
	case q.Get("code_challenge") != "" && q.Get("code_challenge_method") != "S256" && !((h.breaks[PlainAccepted] || h.breaks[PlainHonoured]) && q.Get("code_challenge_method") == "plain"):
		e := "invalid_request"
		if h.breaks[PlainOtherError] {
			e = "unsupported_response_type"
		}
		back(url.Values{"error": {e}, "error_description": {"code_challenge_method must be S256"}})
		return
	}
	if res := q.Get("resource"); h.breaks[ResourceIndicators] && res != "" && res != h.Endpoint() && !strings.HasPrefix(res, "https://other.example/") {
		back(url.Values{"error": {"invalid_target"}, "error_description": {"unknown resource"}})
		return
	}
	if h.breaks[ScopeRequired] && !hasScope(q.Get("scope"), ScopeTools) {
		back(url.Values{"error": {"invalid_scope"}, "error_description": {"ask for the scope the challenge names"}})
		return
	}
	if h.breaks[ApprovalRefusedInvalidScope] {
		back(url.Values{"error": {"invalid_scope"}, "error_description": {"this client may not have that scope"}})
		return
	}
	c := random()
	resource := q.Get("resource")
	h.mu.Lock()
	h.codes[c] = &code{clientID: q.Get("client_id"), redirectURI: redirectURI, challenge: q.Get("code_challenge"), resource: resource,
		plain: h.breaks[PlainHonoured] && q.Get("code_challenge_method") == "plain"}
	h.mu.Unlock()
	back(url.Values{"code": {c}})
}

func (h *Host) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_request"})
		return
	}
	f := r.PostForm
	if h.breaks[ConfidentialOnly] {
		id, secret, ok := r.BasicAuth()
		if !ok || id != f.Get("client_id") || id != ConfidentialID || secret != ConfidentialSecret {
			w.Header().Set("WWW-Authenticate", `Basic realm="token"`)
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client", "error_description": "client authentication failed"})
			return
		}
	}
	invalid := func(desc string) {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": desc})
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var g grant
	switch f.Get("grant_type") {
	case "authorization_code":
		c, ok := h.codes[f.Get("code")]
		switch {
		case !ok || (c.used && !h.breaks[CodeReusable]):
			invalid("unknown or used code")
			return
		case c.clientID != f.Get("client_id") && !h.breaks[CodeClientUnbound]:
			invalid("code issued to another client")
			return
		case c.redirectURI != f.Get("redirect_uri") && h.breaks[TokenRedirectWrongError]:
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_request", "error_description": "redirect_uri differs"})
			return
		case c.redirectURI != f.Get("redirect_uri") && !h.breaks[TokenRedirectIgnored]:
			invalid("redirect_uri differs")
			return
		case c.plain && f.Get("code_verifier") != c.challenge:
			invalid("code_verifier does not match")
			return
		case c.challenge != "" && !c.plain && !h.breaks[VerifierNotChecked] && (f.Get("code_verifier") == "" || s256(f.Get("code_verifier")) != c.challenge):
			invalid("code_verifier does not match")
			return
		}
		c.used = true
		g = grant{clientID: c.clientID, resource: c.resource, scope: ScopeTools + " " + ScopeWrite}
	case "refresh_token":
		old, ok := h.refresh[f.Get("refresh_token")]
		if !ok || h.breaks[RefreshRefused] || (old.clientID != f.Get("client_id") && !h.breaks[RefreshClientUnbound]) {
			invalid("unknown or used refresh_token, or another client's")
			return
		}
		if g, ok = h.refreshResource(old, f.Get("resource")); !ok {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_target", "error_description": "the refresh token is for another resource"})
			return
		}
		if !h.breaks[RefreshNotRotated] && !h.breaks[RefreshReplayAccepted] {
			delete(h.refresh, f.Get("refresh_token"))
		}
		if s := f.Get("scope"); s != "" && h.breaks[RefreshWidens] {
			g.scope = s
		}
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
	if !(h.breaks[RefreshNotRotated] && f.Get("grant_type") == "refresh_token") {
		h.refresh[refresh] = g
		resp["refresh_token"] = refresh
	}
	if !h.breaks[TokenCacheable] {
		w.Header().Set("Cache-Control", "no-store")
	}
	writeJSON(w, http.StatusOK, resp)
}

func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// approver opens the authorization URL and returns where the server
// redirected, as the profile's approval command would.
func approver(hc *http.Client) target.AuthorizationApprover {
	noFollow := *hc
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return func(ctx context.Context, authorizationURL string) (string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, authorizationURL, nil)
		if err != nil {
			return "", err
		}
		resp, err := noFollow.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		if loc := resp.Header.Get("Location"); loc != "" {
			return loc, nil
		}
		return "", fmt.Errorf("the authorization endpoint answered %d without a redirect", resp.StatusCode)
	}
}

// samePortless says whether two loopback IP redirect URIs differ at most in
// their port, which OAuth 2.1 8.4.2 lets a request choose.
func samePortless(registered, requested string) bool {
	a, err1 := url.Parse(registered)
	b, err2 := url.Parse(requested)
	if err1 != nil || err2 != nil || a.Scheme != "http" || b.Scheme != "http" {
		return false
	}
	ip := net.ParseIP(a.Hostname())
	return ip != nil && ip.IsLoopback() && a.Hostname() == b.Hostname() && a.EscapedPath() == b.EscapedPath() && a.RawQuery == b.RawQuery
}
