package fakeauthz

import (
	"context"
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
	clientID, redirectURI, challenge, resource, scope string
	// family is the family of the tokens its redemption issued, which a
	// replay revokes (OAuth 2.1 4.1.3; see CodeReplayKeepsTokens and
	// InvalidReplayRevokes).
	family string
	// plain: the challenge is the verifier itself (RFC 7636 4.2), for
	// PlainHonoured.
	plain, used bool
}

// serveAuthorization is the authorization server: OpenID Connect Discovery
// with path insertion only, dynamic registration, an authorization endpoint
// that approves at once (it asks no person), and the token endpoint.
func (h *Host) serveAuthorization(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/.well-known/openid-configuration/tenant" && !h.breaks[ASMetadataMissing],
		r.Method == http.MethodGet && r.URL.Path == "/.well-known/oauth-authorization-server/tenant" && h.breaks[JWTMethodWithoutAlgsRFC8414]:
		h.serveASMetadata(w)
	case r.Method == http.MethodPost && r.URL.Path == "/tenant/register":
		h.register(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/tenant/authorize" && h.breaks[AuthorizationGETRefused]:
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "use POST", http.StatusMethodNotAllowed)
	case r.Method == http.MethodPost && r.URL.Path == "/tenant/authorize" && h.breaks[AuthorizationGETRefused]:
		_ = r.ParseForm()
		h.authorize(w, r, r.PostForm)
	case r.Method == http.MethodGet && r.URL.Path == "/tenant/authorize":
		h.authorize(w, r, r.URL.Query())
	case r.Method == http.MethodOptions && r.URL.Path == "/tenant/authorize":
		h.preflight(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/tenant/token":
		h.token(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/tenant/revoke" && h.breaks[Revocation]:
		h.revoke(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/tenant/introspect" && h.breaks[Introspection]:
		h.introspect(w, r)
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
		doc["issuer"] = h.asURL
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
	if h.breaks[SecretBodyOnly] {
		doc["token_endpoint_auth_methods_supported"] = []string{"client_secret_basic", "client_secret_post"}
	}
	if h.breaks[PlainHTTPEndpoint] {
		doc["revocation_endpoint"] = "http://as.conform.invalid/tenant/revoke"
	}
	if h.breaks[NoRegistration] {
		delete(doc, "registration_endpoint")
	}
	h.metadataVariants(doc)
	if h.breaks[ASMetadataTextPlain] {
		w.Header().Set("Content-Type", "text/plain")
		_ = json.NewEncoder(w).Encode(doc)
		return
	}
	writeJSON(w, http.StatusOK, doc)
}

// metadataVariants changes the authorization server metadata as the
// variants of the sentence inventory and of issue 21 item 3 say.
func (h *Host) metadataVariants(doc map[string]any) {
	iss := h.Issuer()
	if h.breaks[EndpointWithFragment] {
		doc["authorization_endpoint"] = iss + "/authorize#conform"
	}
	if h.breaks[ASMetadataEmptyArray] {
		doc["acr_values_supported"] = []string{}
	}
	if h.breaks[ASMetadataWithoutScopes] {
		delete(doc, "scopes_supported")
	}
	if h.breaks[JWTMethodWithoutAlgs] {
		doc["token_endpoint_auth_methods_supported"] = []string{"none", "private_key_jwt"}
	}
	if h.breaks[SigningAlgNone] {
		doc["token_endpoint_auth_signing_alg_values_supported"] = []string{"none"}
	}
	if h.breaks[RefreshOnlyOfflineAccess] {
		doc["scopes_supported"] = []string{ScopeTools, ScopeWrite, "openid", "offline_access"}
	}
	if h.breaks[ConfidentialRegistration] {
		doc["token_endpoint_auth_methods_supported"] = []string{"client_secret_basic", "client_secret_post", "none"}
	}
	if h.breaks[Revocation] {
		doc["revocation_endpoint"] = iss + "/revoke"
	}
	if h.breaks[Introspection] {
		doc["introspection_endpoint"] = iss + "/introspect"
	}
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
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var body struct {
		RedirectURIs    []string `json:"redirect_uris"`
		ApplicationType string   `json:"application_type"`
	}
	if err := json.Unmarshal(raw, &body); err != nil || len(body.RedirectURIs) == 0 || h.breaks[RegistrationRefused] || h.breaks[ConfidentialOnly] {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_redirect_uri", "error_description": "redirect_uris is required"})
		return
	}
	if h.breaks[RegistrationUnknownFieldRefused] && hasUnknownField(raw) {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_client_metadata", "error_description": "unknown client metadata"})
		return
	}
	for _, u := range body.RedirectURIs {
		if !h.registrable(u) {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_redirect_uri", "error_description": "redirect URIs must be loopback or https, without a fragment"})
			return
		}
	}
	if h.breaks[RegistrationBroken] {
		writeJSON(w, http.StatusOK, map[string]any{"redirect_uris": body.RedirectURIs})
		return
	}
	id := random()
	if h.breaks[RegistrationSameClientID] {
		id = "conform-shared"
	}
	resp := map[string]any{"client_id": id, "redirect_uris": body.RedirectURIs, "token_endpoint_auth_method": "none"}
	if body.ApplicationType != "" {
		// Registered, so returned (RFC 7591 3.2.1).
		resp["application_type"] = body.ApplicationType
	}
	h.mu.Lock()
	h.clients[id] = append(h.clients[id], body.RedirectURIs...)
	h.native[id] = body.ApplicationType == "native"
	if h.breaks[ConfidentialRegistration] {
		h.secrets[id] = random()
		resp["client_secret"], resp["token_endpoint_auth_method"] = h.secrets[id], "client_secret_basic"
		if !h.breaks[SecretWithoutExpiry] {
			resp["client_secret_expires_at"] = 0
		}
	}
	if h.breaks[SecretWithNone] {
		resp["client_secret"], resp["client_secret_expires_at"] = random(), 0
	}
	h.registered++
	h.mu.Unlock()
	if h.breaks[RegistrationEchoesNothing] {
		resp = map[string]any{"client_id": id}
	}
	writeJSON(w, http.StatusCreated, resp)
}

// registrable says whether registration takes a redirect URI: https or a
// loopback http one, the name localhost included, without a fragment
// (security.3: "All redirect URIs MUST be either localhost or use HTTPS";
// OAuth 2.1 2.3), unless a variant takes more. localhost is only NOT
// RECOMMENDED for the client (OAuth 2.1 8.4.2), so refusing it would be
// stricter than the text.
func (h *Host) registrable(u string) bool {
	p, err := url.Parse(u)
	switch {
	case h.breaks[RegistrationAnyRedirect]:
		return true
	case err != nil || p.Fragment != "" || strings.Contains(u, "#"):
		return false
	case p.Scheme == "https" || p.Scheme == "http" && (loopback(p.Hostname()) || p.Hostname() == "localhost"):
		return true
	case p.Scheme == "http":
		return h.breaks[PlainRedirectHonoured] || h.breaks[PlainRedirectRegisteredNotUsed]
	case p.Scheme == "":
		return h.breaks[RegistrationRelativeRedirect]
	}
	return h.breaks[RegistrationPrivateSchemeNoPeriod] && !strings.Contains(p.Scheme, ".")
}

func loopback(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hasUnknownField says whether a registration names metadata RFC 7591 2 and
// OpenID Connect Dynamic Client Registration do not define.
func hasUnknownField(raw []byte) bool {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return false
	}
	for k := range fields {
		if !slices.Contains(knownMetadata, k) {
			return true
		}
	}
	return false
}

var knownMetadata = []string{"redirect_uris", "token_endpoint_auth_method", "grant_types", "response_types", "client_name",
	"client_uri", "logo_uri", "scope", "contacts", "tos_uri", "policy_uri", "jwks_uri", "jwks", "software_id",
	"software_version", "software_statement", "application_type"}

// authorize validates the request (OAuth 2.1 4.1.1, 4.1.2.1) and approves it.
func (h *Host) authorize(w http.ResponseWriter, r *http.Request, q url.Values) {
	if h.breaks[AuthorizationEndpointDown] {
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	if h.breaks[AuthorizationThrottled] {
		w.Header().Set("Retry-After", "3600")
		http.Error(w, "too many authorization requests", http.StatusTooManyRequests)
		return
	}
	if h.breaks[ConsentPage] || h.breaks[FramingAllowed] {
		if !h.breaks[FramingAllowed] {
			// OAuth 2.1 7.10: a page of the authorization endpoint is not
			// to be framed.
			w.Header().Set("Content-Security-Policy", "frame-ancestors 'none'")
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html><body><form method=post><button>Allow</button></form></body></html>")
		return
	}
	if h.breaks[CORSAllowed] {
		w.Header().Set("Access-Control-Allow-Origin", "*")
	}
	clientID := q.Get("client_id")
	h.mu.Lock()
	uris, known := h.clients[clientID]
	native := h.native[clientID]
	_, confidential := h.secrets[clientID]
	anyLoopback := h.anyLoopback[clientID]
	documents := h.documents
	h.mu.Unlock()
	if !known && !h.breaks[CIMDNotAdvertised] {
		if uris, known = clientDocument(r.Context(), documents, clientID); known {
			h.mu.Lock()
			h.clients[clientID] = uris
			h.mu.Unlock()
		}
	}
	if !known && h.breaks[UnknownClientRedirected] {
		uris, known = []string{q.Get("redirect_uri")}, true
	}
	redirectURI := q.Get("redirect_uri")
	portless := slices.ContainsFunc(uris, func(u string) bool {
		return samePortless(u, redirectURI) || h.breaks[LocalhostPortFree] && sameLocalhostPortless(u, redirectURI)
	})
	registered := slices.Contains(uris, redirectURI) || (!h.breaks[LoopbackPortFixed] && !h.breaks[LoopbackErrorRedirect] && (native || !h.breaks[LoopbackPortsNativeOnly]) && portless)
	registered = registered || (anyLoopback && loopbackRedirect(redirectURI))
	if h.breaks[RedirectPrefixMatched] {
		registered = registered || slices.ContainsFunc(uris, func(u string) bool { return strings.HasPrefix(redirectURI, u) })
	}
	back := func(params url.Values) {
		u, _ := url.Parse(redirectURI)
		v := u.Query()
		if h.breaks[RedirectQueryDropped] {
			v = url.Values{}
		}
		for k, vs := range params {
			v[k] = vs
		}
		if s := q.Get("state"); s != "" {
			if h.breaks[StateNotEchoed] {
				s = strings.ToLower(strings.ReplaceAll(s, " ", "_"))
			}
			v.Set("state", s)
			if h.breaks[StateRepeated] {
				v.Add("state", s)
			}
		}
		if !h.breaks[IssMissing] {
			v.Set("iss", h.Issuer())
		}
		if params.Has("error") && q.Get("response_type") == "token" && h.breaks[TokenErrorInFragment] {
			// The redirect URI's own query stays where it is.
			own, f := u.Query(), url.Values{}
			for k, vs := range v {
				if !own.Has(k) || params.Has(k) {
					f[k] = vs
				}
			}
			http.Redirect(w, r, u.String()+"#"+f.Encode(), http.StatusFound)
			return
		}
		u.RawQuery = v.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	}
	if known && !registered && portless && h.breaks[LoopbackErrorRedirect] {
		// An error redirect to the unregistered port: no acceptance.
		back(url.Values{"error": {"invalid_request"}, "error_description": {"Unregistered redirect_uri"}})
		return
	}
	if !known || !registered {
		http.Error(w, "unknown client or redirect_uri not registered", http.StatusBadRequest)
		return
	}
	if p, err := url.Parse(redirectURI); err == nil && p.Scheme == "http" && !loopback(p.Hostname()) && h.breaks[PlainRedirectRegisteredNotUsed] {
		http.Error(w, "redirect_uri must be https or loopback", http.StatusBadRequest)
		return
	}
	if h.breaks[UnknownParamRefused] {
		for k := range q {
			if !slices.Contains(authorizationParams, k) {
				back(url.Values{"error": {"invalid_request"}, "error_description": {"unknown parameter " + k}})
				return
			}
		}
	}
	if h.breaks[StateEntropyRequired] && len(q.Get("state")) < 8 {
		back(url.Values{"error": {"invalid_state"}, "error_description": {"state must be at least 8 characters long"}})
		return
	}
	missingChallenge := "invalid_request"
	if h.breaks[ChallengeMissingWrongError] {
		missingChallenge = "access_denied"
	}
	if q.Get("response_type") == "token" && h.breaks[ImplicitTokenInFragment] {
		u, _ := url.Parse(redirectURI)
		f := url.Values{"access_token": {h.Mint(h.Endpoint(), q.Get("scope"), false)}, "token_type": {"Bearer"}, "state": {q.Get("state")}}
		http.Redirect(w, r, u.String()+"#"+f.Encode(), http.StatusFound)
		return
	}
	switch {
	case q.Get("response_type") != "code" && !h.breaks[ResponseTypeIgnored]:
		back(url.Values{"error": {"unsupported_response_type"}})
		return
	case q.Get("code_challenge") == "" && !h.breaks[ChallengeNotRequired] && !(confidential && (h.breaks[ConfidentialPKCEOptional] || h.breaks[ChallengeEnforcedAtToken])):
		back(url.Values{"error": {missingChallenge}, "error_description": {"code_challenge required"}})
		return
	case q.Get("code_challenge") != "" && q.Get("code_challenge_method") != "S256" && !((h.breaks[PlainAccepted] || h.breaks[PlainHonoured]) && q.Get("code_challenge_method") == "plain"):
		e := "invalid_request"
		if h.breaks[PlainOtherError] {
			e = "unsupported_response_type"
		}
		back(url.Values{"error": {e}, "error_description": {"code_challenge_method must be S256"}})
		return
	}
	resource := canonicalResource(q.Get("resource"))
	if h.breaks[ResourceCaseSensitive] {
		resource = q.Get("resource")
	}
	if h.breaks[ResourceIndicators] && resource != "" && resource != h.Endpoint() && !strings.HasPrefix(resource, "https://other.example/") {
		back(url.Values{"error": {"invalid_target"}, "error_description": {"unknown resource"}})
		return
	}
	if h.breaks[ScopeRequired] && !hasScope(q.Get("scope"), ScopeTools) {
		back(url.Values{"error": {"invalid_scope"}, "error_description": {"ask for the scope the challenge names"}})
		return
	}
	if h.breaks[ScopeOmittedWrongError] && q.Get("scope") == "" {
		back(url.Values{"error": {"invalid_request"}, "error_description": {"scope is missing"}})
		return
	}
	if h.breaks[ApprovalRefusedInvalidScope] {
		back(url.Values{"error": {"invalid_scope"}, "error_description": {"this client may not have that scope"}})
		return
	}
	c := random()
	if h.breaks[ChallengeInCode] {
		c += "." + q.Get("code_challenge")
	}
	h.mu.Lock()
	if h.breaks[ReauthorizationRevokes] {
		h.revokeClient(clientID)
	}
	h.codes[c] = &code{clientID: clientID, redirectURI: redirectURI, challenge: q.Get("code_challenge"), resource: resource, scope: q.Get("scope"),
		plain: h.breaks[PlainHonoured] && q.Get("code_challenge_method") == "plain"}
	h.mu.Unlock()
	back(url.Values{"code": {c}})
}

// authorizationParams are the authorization request's parameters the fake
// knows (OAuth 2.1 4.1.1, RFC 8707, OpenID Connect), for UnknownParamRefused.
var authorizationParams = []string{"response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge",
	"code_challenge_method", "resource", "nonce", "prompt"}

// canonicalResource lowercases a resource indicator's scheme and host,
// which authorization 8.1 asks implementations to accept in either case.
func canonicalResource(resource string) string {
	u, err := url.Parse(resource)
	if err != nil || u.Host == "" {
		return resource
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	return u.String()
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
// sameLocalhostPortless is samePortless for the name localhost, which
// LocalhostPortFree takes as it takes a loopback IP literal.
func sameLocalhostPortless(registered, requested string) bool {
	a, err1 := url.Parse(registered)
	b, err2 := url.Parse(requested)
	return err1 == nil && err2 == nil && a.Scheme == "http" && b.Scheme == "http" &&
		strings.EqualFold(a.Hostname(), "localhost") && strings.EqualFold(b.Hostname(), "localhost") &&
		a.EscapedPath() == b.EscapedPath() && a.RawQuery == b.RawQuery
}

func samePortless(registered, requested string) bool {
	a, err1 := url.Parse(registered)
	b, err2 := url.Parse(requested)
	if err1 != nil || err2 != nil || a.Scheme != "http" || b.Scheme != "http" {
		return false
	}
	ip := net.ParseIP(a.Hostname())
	return ip != nil && ip.IsLoopback() && a.Hostname() == b.Hostname() && a.EscapedPath() == b.EscapedPath() && a.RawQuery == b.RawQuery
}
