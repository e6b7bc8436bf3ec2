package oauth

import (
	"github.com/conform-mcp/conform/impl/store"
)

// refreshGrant exchanges a refresh token for a new credential (RFC 6749
// section 6). The refresh token rotates: the one presented is spent and the
// credential issued with it revoked in the same transaction that stores
// their successors. A spent token presented again means it leaked, to the
// client or to an attacker, and nobody can tell which: the whole grant is
// revoked, every credential and refresh token it issued (RFC 9700 section
// 4.14.2, refresh token rotation).
func (s *Server) refreshGrant(req tokenRequest) (*tokenResponse, *oauthError) {
	invalid := badRequest(errInvalidGrant, "Invalid or revoked refresh_token")
	token := req.form.Get("refresh_token")
	if token == "" {
		return nil, badRequest(errInvalidRequest, "Missing refresh_token")
	}
	// Every client of this host is public, so client_id is the only thing
	// that says who redeems the token: OAuth 2.1 (draft 13, section 3.2.2)
	// needs it where "the grant_type requires identification of public
	// clients", and section 4.3.1 matches it against the token's client.
	if req.clientID == "" {
		return nil, badRequest(errInvalidRequest, "Missing client_id: a refresh token is redeemed by the client it was issued to")
	}
	if !s.authentic(kindRefresh, token) {
		return nil, invalid
	}
	digest := store.DigestOf(token)
	var resp *tokenResponse
	var oerr *oauthError
	err := s.viewThenUpdate(func(tx *store.Tx, write bool) (bool, error) {
		resp, oerr = nil, nil
		rt, ok, err := tx.RefreshToken(digest)
		if err != nil {
			return false, err
		}
		if !ok || req.clientID != rt.ClientID {
			oerr = invalid
			return true, nil
		}
		if !rt.SpentAt.IsZero() {
			// A replay revokes the grant: a change, made in the read-write
			// transaction.
			if !write {
				return false, nil
			}
			oerr = badRequest(errInvalidGrant, "Refresh token already used; every token of its grant is revoked")
			s.log.Warn("refresh token replayed; grant revoked", "client_id", rt.ClientID)
			return true, revokeGrant(tx, rt.GrantID)
		}
		client, ok, err := lookupClient(tx, rt.ClientID, req.now)
		if err != nil {
			return false, err
		}
		if !ok {
			oerr = invalid
			return true, nil
		}
		if !allowsGrant(client, grantRefreshToken) {
			oerr = badRequest(errUnauthorizedClient, "The client did not register for the refresh_token grant")
			return true, nil
		}
		if !write {
			return false, nil
		}
		rt.SpentAt = req.now
		if err := tx.PutRefreshToken(digest, rt); err != nil {
			return false, err
		}
		if err := tx.DeleteCredential(rt.Access); err != nil {
			return false, err
		}
		resp, err = s.issue(tx, client, rt.Role, rt.GrantID, req.now,
			grantOutput{ttl: authCodeAccessLifetime, withRefresh: true})
		return true, err
	})
	if err != nil {
		s.log.Error("refresh grant", "err", err)
		return nil, serverError(err)
	}
	return resp, oerr
}
