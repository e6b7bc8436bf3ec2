package oauth

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/conform-mcp/conform/impl/role"
	"github.com/conform-mcp/conform/impl/store"
)

// tokenResponse is the RFC 6749 section 5.1 success answer. The device grant
// leaves ExpiresIn and RefreshToken empty: its credential has no expiry and
// comes without a refresh token (source sections 2 and 5.8).
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in,omitempty"`
	RefreshToken string `json:"refresh_token,omitempty"`
	// Scope is what the credential may do: the scopes of the role chosen at
	// consent (RFC 6749 section 5.1; package role).
	Scope string `json:"scope,omitempty"`
}

// tokenRequest is what every grant handler receives.
type tokenRequest struct {
	form url.Values
	// clientID is the client_id the request names, from the body or from
	// HTTP Basic with an empty password; "" when it names none.
	clientID string
	now      time.Time
}

// handleToken is POST /oauth/token (RFC 6749 section 3.2): it dispatches on
// grant_type to the three grants source section 4 names.
func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	form, oerr := readForm(w, r)
	if oerr != nil {
		writeError(w, oerr)
		return
	}
	req := tokenRequest{form: form, now: s.clock.Now()}
	if ok, wait := s.tokens.allow(s.peerKey(r), req.now); !ok {
		s.refuseTokenRequest(w, form.Get("grant_type"), wait)
		return
	}
	if req.clientID, oerr = requestClientID(r, form); oerr != nil {
		writeError(w, oerr)
		return
	}
	if oerr = s.checkResource(r, form); oerr != nil {
		writeError(w, oerr)
		return
	}
	s.maybeSweep(req.now)
	var resp *tokenResponse
	switch form.Get("grant_type") {
	case "":
		oerr = badRequest(errInvalidRequest, "Missing grant_type")
	case grantDevice, grantDeviceShort:
		resp, oerr = s.deviceGrant(req)
	case grantAuthCode:
		resp, oerr = s.authorizationCodeGrant(req)
	case grantRefreshToken:
		resp, oerr = s.refreshGrant(req)
	default:
		oerr = badRequest(errUnsupportedGrantType,
			"Only device_code, authorization_code, and refresh_token grants are supported")
	}
	if oerr != nil {
		writeError(w, oerr)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// refuseTokenRequest answers a token request from an address that spent its
// allowance, before the store is looked at. A device-grant poll is told
// slow_down, the answer RFC 8628 sections 3.5 and 5.2 give a client that
// polls too often, so it backs off as it already knows how to; any other
// grant gets 429 with Retry-After, as the other limits answer.
func (s *Server) refuseTokenRequest(w http.ResponseWriter, grant string, wait time.Duration) {
	if grant == grantDevice || grant == grantDeviceShort {
		setRetryAfter(w, wait)
		writeError(w, badRequest(errSlowDown, "Too many token requests from this address; poll 5 seconds more slowly (RFC 8628 section 3.5)"))
		return
	}
	tooMany(w, wait, "Too many token requests from this address; wait and try again")
}

// requestClientID finds the client_id of a token request. Clients are public,
// so the id travels in the body (RFC 6749 section 2.3.1 and RFC 8628 section
// 3.4); some clients send it as HTTP Basic with an empty password instead,
// which is accepted as long as both agree.
func requestClientID(r *http.Request, form url.Values) (string, *oauthError) {
	id := form.Get("client_id")
	user, pass, ok := r.BasicAuth()
	if !ok {
		return id, nil
	}
	if u, err := url.QueryUnescape(user); err == nil {
		user = u
	}
	if pass != "" {
		return "", badRequest(errInvalidClient, "Clients are public: no client secret is accepted")
	}
	if id != "" && id != user {
		return "", badRequest(errInvalidRequest, "client_id differs between the body and the Authorization header")
	}
	return user, nil
}

// allowsGrant reports whether the client registered for grant
// (RFC 7591 section 2, grant_types).
func allowsGrant(c store.Client, grant string) bool { return slices.Contains(c.GrantTypes, grant) }

// grantOutput says what a grant issues: a credential that expires after ttl
// (never when zero), and a refresh token beside it when withRefresh.
type grantOutput struct {
	ttl         time.Duration
	withRefresh bool
}

// issue stores a new credential for one authorization, with what out asks
// for; it also marks the client as used, so its registration no longer
// expires (source section 3). It runs inside the grant's transaction: the
// credential, the spent code and the client's mark are stored together or
// not at all.
func (s *Server) issue(tx *store.Tx, client store.Client, roleName, grantID string, now time.Time, out grantOutput) (*tokenResponse, error) {
	access, accessDigest := s.mint(kindCredential)
	cred := store.Credential{ClientID: client.ID, Role: roleName, GrantID: grantID, IssuedAt: now}
	resp := &tokenResponse{AccessToken: access, TokenType: "Bearer",
		Scope: strings.Join(role.ScopesOf(roleName), " ")}
	if out.ttl > 0 {
		cred.ExpiresAt = now.Add(out.ttl)
		resp.ExpiresIn = int64(out.ttl / time.Second)
	}
	if out.withRefresh {
		refresh, refreshDigest := s.mint(kindRefresh)
		resp.RefreshToken = refresh
		if err := tx.PutRefreshToken(refreshDigest, store.RefreshToken{ClientID: client.ID, Role: roleName,
			GrantID: grantID, IssuedAt: now, Access: accessDigest}); err != nil {
			return nil, err
		}
	}
	if err := tx.PutCredential(accessDigest, cred); err != nil {
		return nil, err
	}
	if !client.Used {
		client.Used = true
		if err := tx.PutClient(client); err != nil {
			return nil, err
		}
	}
	s.log.Info("credential issued", "client_id", client.ID, "role", roleName, "refresh_token", out.withRefresh)
	return resp, nil
}
