package fakeauthz

import (
	"net/http"
)

// revoke is RFC 7009's revocation endpoint, served under Revocation: it
// revokes a refresh token with the access tokens of its grant ("the
// authorization server SHOULD also invalidate all access tokens based on the
// same authorization grant", 2.1), or an access token, when the token was
// issued to the client asking, and answers 200 whether or not it found the
// token (2.2). A token_type_hint only orders the search (2.1).
func (h *Host) revoke(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	token, hint := r.PostForm.Get("token"), r.PostForm.Get("token_type_hint")
	clientID := r.PostForm.Get("client_id")
	if id, _, ok := r.BasicAuth(); ok {
		clientID = id
	}
	strict := h.breaks[RevocationHintStrict]
	h.mu.Lock()
	if g, ok := h.refresh[token]; ok && g.clientID == clientID && !h.breaks[RevocationIgnored] && !(strict && hint == "access_token") {
		delete(h.refresh, token)
		if !h.breaks[RevocationKeepsAccess] {
			h.revokeAccess(g.family)
		}
	} else if g, ok := h.tokens[token]; ok && g.clientID == clientID && !h.breaks[RevocationIgnored] && !(strict && hint == "refresh_token") {
		delete(h.tokens, token)
	}
	h.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// revokeFamily revokes every access and refresh token of one authorization
// code's grant. The caller holds h.mu.
func (h *Host) revokeFamily(family string) {
	if family == "" {
		return
	}
	h.revokeAccess(family)
	for t, g := range h.refresh {
		if g.family == family {
			delete(h.refresh, t)
			// Still one the server issued, for RefreshAnyToken.
			h.rotated[t] = family
		}
	}
}

// revokeAccess revokes the access tokens of one grant. The caller holds h.mu.
func (h *Host) revokeAccess(family string) {
	if family == "" {
		return
	}
	for t, g := range h.tokens {
		if g.family == family {
			delete(h.tokens, t)
		}
	}
}

// revokeClient revokes every access and refresh token issued to a client,
// for ReauthorizationRevokes. The caller holds h.mu.
func (h *Host) revokeClient(clientID string) {
	if clientID == "" {
		return
	}
	for t, g := range h.tokens {
		if g.clientID == clientID {
			delete(h.tokens, t)
		}
	}
	for t, g := range h.refresh {
		if g.clientID == clientID {
			delete(h.refresh, t)
		}
	}
}
