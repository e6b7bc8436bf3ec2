package fakeauthz

import (
	"net/http"
	"time"
)

// introspect is RFC 7662's introspection endpoint, served under
// Introspection. It answers only ConfidentialID's HTTP Basic credentials
// ("the endpoint MUST also require some form of authorization", 2.1), looks
// the token up among access and refresh tokens whatever the hint (2.1), and
// answers active with aud, scope, client_id and exp, or active false and
// nothing else for a token it does not know or that expired (2.2).
func (h *Host) introspect(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	id, secret, ok := r.BasicAuth()
	if !h.breaks[IntrospectionOpen] && !(ok && id == ConfidentialID && secret == ConfidentialSecret) {
		w.Header().Set("WWW-Authenticate", `Basic realm="introspection"`)
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client"})
		return
	}
	token, hint := r.PostForm.Get("token"), r.PostForm.Get("token_type_hint")
	h.mu.Lock()
	g, found := h.tokens[token]
	if h.breaks[IntrospectionHintStrict] && hint == "refresh_token" {
		g, found = grant{}, false
	}
	if !found {
		g, found = h.refresh[token]
	}
	h.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	if !found || g.expired && !h.breaks[ExpiredTokenLive] {
		resp := map[string]any{"active": false}
		if h.breaks[IntrospectionInactiveDetails] {
			resp["error_description"] = "the token is unknown or expired"
		}
		writeJSON(w, http.StatusOK, resp)
		return
	}
	resp := map[string]any{"active": true, "aud": g.resource, "scope": g.scope, "client_id": g.clientID,
		"token_type": "Bearer", "exp": time.Now().Add(time.Hour).Unix()}
	if h.breaks[IntrospectionActiveMissing] {
		delete(resp, "active")
	}
	writeJSON(w, http.StatusOK, resp)
}
