package oauth

import (
	"net/http"

	"github.com/conform-mcp/conform/impl/store"
)

// handleRevoke is POST /oauth/revoke, token revocation (RFC 7009). A client
// revokes a token issued to it, naming itself with client_id as a public
// client does at the token endpoint (RFC 7009 section 2.1: the server
// "verifies whether the token was issued to the client making the
// revocation request"). The owner, signed in on the consent pages, revokes
// any token without naming a client: that is what toolhost revoke does.
//
// Revoking a refresh token revokes every credential and refresh token of its
// grant (section 2.1: the server "SHOULD also invalidate all access tokens
// based on the same authorization grant"); revoking a credential revokes it
// alone. A token this host never issued, or already revoked, is answered 200
// like a revoked one (section 2.2), and costs no write.
func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	form, oerr := readForm(w, r)
	if oerr != nil {
		writeError(w, oerr)
		return
	}
	// The owner's revocation is the emergency one: it never waits for the
	// token endpoint's limit, which anyone at the same address could fill.
	_, owner := s.ownerSession(r)
	owner = owner && s.sameOrigin(r)
	if !owner {
		if ok, wait := s.tokens.allow(s.peerKey(r), s.clock.Now()); !ok {
			tooMany(w, wait, "Too many token requests from this address; wait and try again")
			return
		}
	}
	clientID, oerr := requestClientID(r, form)
	if oerr != nil {
		writeError(w, oerr)
		return
	}
	token := form.Get("token")
	if token == "" {
		writeError(w, badRequest(errInvalidRequest, "Missing token"))
		return
	}
	if !owner && clientID == "" {
		writeError(w, badRequest(errInvalidRequest, "Missing client_id: a token is revoked by the client it was issued to"))
		return
	}
	// token_type_hint is only a hint (section 2.1); the tag of a token
	// this host minted already says which kind it is.
	var kind string
	switch {
	case s.authentic(kindCredential, token):
		kind = kindCredential
	case s.authentic(kindRefresh, token):
		kind = kindRefresh
	default:
		revoked(w)
		return
	}
	digest := store.DigestOf(token)
	var holder string
	err := s.viewThenUpdate(func(tx *store.Tx, write bool) (bool, error) {
		oerr, holder = nil, ""
		var grantID string
		if kind == kindCredential {
			c, found, err := tx.Credential(digest)
			if err != nil || !found {
				return true, err
			}
			holder = c.ClientID
		} else {
			rt, found, err := tx.RefreshToken(digest)
			if err != nil || !found {
				return true, err
			}
			holder, grantID = rt.ClientID, rt.GrantID
		}
		if !owner && holder != clientID {
			oerr = badRequest(errInvalidRequest, "The token was not issued to this client")
			return true, nil
		}
		if !write {
			return false, nil
		}
		if kind == kindCredential {
			return true, tx.DeleteCredential(digest)
		}
		return true, revokeGrant(tx, grantID)
	})
	switch {
	case err != nil:
		s.log.Error("revoke a token", "err", err)
		writeError(w, serverError(err))
	case oerr != nil:
		writeError(w, oerr)
	default:
		if holder != "" {
			s.log.Info("token revoked", "client_id", holder, "kind", kind, "by_owner", owner)
		}
		revoked(w)
	}
}

// revoked is the answer to a revocation that succeeded, or named a token
// that is not valid: 200 with no content (RFC 7009 section 2.2).
func revoked(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}
