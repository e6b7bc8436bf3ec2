package fakeauthz

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"time"
)

// refreshResource is the grant a refresh naming resource obtains. Refresh
// tokens "MUST be bound to the scope and resource servers as consented by
// the resource owner" (OAuth 2.1 3.2.3), so another resource than the
// grant's is refused with invalid_target (RFC 8707 2), or, with
// RefreshResourceIgnored, not looked at; "" is the grant's.
func (h *Host) refreshResource(g grant, resource string) (grant, bool) {
	if resource == "" || resource == g.resource || h.breaks[RefreshResourceIgnored] {
		return g, true
	}
	if h.breaks[RefreshRetargets] {
		g.resource = resource
		return g, true
	}
	return g, false
}

// accessToken is a new access token for g: opaque, unless RefreshRetargets
// or JWTAccessTokens, whose tokens are JWTs (unsigned: only the fake reads
// them back, by value) that say their audience (unless AudienceOmitted) and
// scope, and under JWTAccessTokens their expiry.
func (h *Host) accessToken(g grant) string {
	if !h.breaks[RefreshRetargets] && !h.breaks[JWTAccessTokens] {
		return random()
	}
	claims := map[string]any{"aud": g.resource, "scope": g.scope}
	if h.breaks[AudienceOmitted] {
		delete(claims, "aud")
	}
	if h.breaks[JWTAccessTokens] {
		claims["exp"] = time.Now().Add(time.Hour).Unix()
	}
	body, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"none"}`)) + "." + enc(body) + "." + random()
}

// preflight answers a CORS preflight at the authorization endpoint: with
// CORSPreflightAllowed it allows the origin that asks, which OAuth 2.1 3.1
// forbids; the fake otherwise serves no OPTIONS there.
func (h *Host) preflight(w http.ResponseWriter, r *http.Request) {
	if !h.breaks[CORSPreflightAllowed] {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
	w.Header().Set("Access-Control-Allow-Methods", "GET")
	w.WriteHeader(http.StatusNoContent)
}
