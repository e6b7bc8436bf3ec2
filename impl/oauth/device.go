package oauth

import (
	"crypto/rand"
	"errors"
	"net/http"
	"strings"

	"github.com/conform-mcp/conform/impl/store"
)

// userCodeAlphabet has no vowels, so no word can be spelled, and no digits,
// so nothing looks like another character (RFC 8628 section 6.1).
const userCodeAlphabet = "BCDFGHJKLMNPQRSTVWXZ"

// deviceAuthorizationResponse is the RFC 8628 section 3.2 answer.
type deviceAuthorizationResponse struct {
	DeviceCode              string `json:"device_code"`
	UserCode                string `json:"user_code"`
	VerificationURI         string `json:"verification_uri"`
	VerificationURIComplete string `json:"verification_uri_complete"`
	ExpiresIn               int    `json:"expires_in"`
	Interval                int    `json:"interval"`
}

// handleDeviceAuthorization is POST /oauth/device_authorization (RFC 8628
// sections 3.1 and 3.2): it starts a device authorization for a registered
// client.
func (s *Server) handleDeviceAuthorization(w http.ResponseWriter, r *http.Request) {
	form, oerr := readForm(w, r)
	if oerr != nil {
		writeError(w, oerr)
		return
	}
	now := s.clock.Now()
	s.maybeSweep(now)
	clientID, oerr := requestClientID(r, form)
	if oerr != nil {
		writeError(w, oerr)
		return
	}
	if clientID == "" {
		writeError(w, badRequest(errInvalidClient, "Missing client_id"))
		return
	}
	deviceCode := randomString(32)
	digest := store.DigestOf(deviceCode)
	var userCode string
	err := s.store.Update(func(tx *store.Tx) error {
		client, ok, err := lookupClient(tx, clientID, now)
		if err != nil {
			return err
		}
		if !ok {
			oerr = badRequest(errInvalidClient, "Unknown client_id; register again")
			return nil
		}
		if !allowsGrant(client, grantDevice) {
			oerr = badRequest(errUnauthorizedClient, "The client did not register for the device_code grant")
			return nil
		}
		// Twenty letters to the eighth power leaves collisions rare; a few
		// draws make one vanishingly unlikely to matter.
		for range 8 {
			userCode = newUserCode()
			err = tx.PutDeviceCode(digest, store.DeviceCode{
				UserCode:  userCode,
				ClientID:  client.ID,
				IssuedAt:  now,
				ExpiresAt: now.Add(deviceCodeLifetime),
				Interval:  deviceInterval,
				Status:    store.DevicePending,
			})
			if !errors.Is(err, store.ErrUserCodeTaken) {
				return err
			}
		}
		return err
	})
	if err != nil {
		s.log.Error("start device authorization", "err", err)
		writeError(w, serverError())
		return
	}
	if oerr != nil {
		writeError(w, oerr)
		return
	}
	verify := s.base.Of(r) + "/oauth/device"
	writeJSON(w, http.StatusOK, deviceAuthorizationResponse{
		DeviceCode:              deviceCode,
		UserCode:                userCode,
		VerificationURI:         verify,
		VerificationURIComplete: verify + "?user_code=" + userCode,
		ExpiresIn:               int(deviceCodeLifetime.Seconds()),
		Interval:                int(deviceInterval.Seconds()),
	})
}

// newUserCode draws eight letters uniformly from userCodeAlphabet and writes
// them as two groups of four (BZVR-ZQZQ), easy to read aloud and type.
func newUserCode() string {
	const limit = 256 - 256%len(userCodeAlphabet) // reject bytes that would bias the draw
	var b strings.Builder
	buf := make([]byte, 1)
	for b.Len() < 9 {
		if b.Len() == 4 {
			b.WriteByte('-')
		}
		for {
			_, _ = rand.Read(buf) // crypto/rand.Read never fails (Go 1.24+)
			if int(buf[0]) < limit {
				b.WriteByte(userCodeAlphabet[int(buf[0])%len(userCodeAlphabet)])
				break
			}
		}
	}
	return b.String()
}

// normalizeUserCode accepts what a person types: any case, with or without
// the hyphen, with stray spaces (RFC 8628 section 6.1).
func normalizeUserCode(s string) string {
	s = strings.ToUpper(strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, s))
	if len(s) != 8 {
		return s
	}
	return s[:4] + "-" + s[4:]
}

// deviceGrant redeems a device code at the token endpoint (RFC 8628 section
// 3.4 and 3.5). The answers, in order: an unknown, expired or spent code is
// invalid_grant with the source's text (section 7.3); a denied one is
// access_denied; a pending one is slow_down when polled sooner than the
// interval, else authorization_pending; an approved one yields a credential
// with no expiry and no refresh token (source sections 2 and 5.8).
func (s *Server) deviceGrant(req tokenRequest) (*tokenResponse, *oauthError) {
	invalid := badRequest(errInvalidGrant, "Invalid or expired device_code")
	deviceCode := req.form.Get("device_code")
	if deviceCode == "" {
		return nil, badRequest(errInvalidRequest, "Missing device_code")
	}
	digest := store.DigestOf(deviceCode)
	var resp *tokenResponse
	var oerr *oauthError
	err := s.store.Update(func(tx *store.Tx) error {
		dc, ok, err := tx.DeviceCode(digest)
		if err != nil {
			return err
		}
		// The window is [issued, issued+5m): at five minutes it is over.
		if !ok || !req.now.Before(dc.ExpiresAt) {
			oerr = invalid
			return nil
		}
		if req.clientID != "" && req.clientID != dc.ClientID {
			oerr = invalid
			return nil
		}
		client, ok, err := lookupClient(tx, dc.ClientID, req.now)
		if err != nil {
			return err
		}
		if !ok {
			oerr = invalid
			return nil
		}
		if !allowsGrant(client, grantDevice) {
			oerr = badRequest(errUnauthorizedClient, "The client did not register for the device_code grant")
			return nil
		}
		switch dc.Status {
		case store.DeviceDenied:
			oerr = badRequest(errAccessDenied, "The authorization request was denied")
			return nil
		case store.DeviceApproved:
			// A device code is redeemed once: deleting it with the issue makes
			// every later poll invalid_grant.
			if err := tx.DeleteDeviceCode(digest); err != nil {
				return err
			}
			resp, err = s.issue(tx, client, dc.Role, randomString(16), req.now, grantOutput{})
			return err
		}
		// RFC 8628 section 3.5: slow_down is "a variant of
		// authorization_pending"; the first poll has nothing to be too soon after.
		tooSoon := !dc.LastPoll.IsZero() && req.now.Sub(dc.LastPoll) < dc.Interval
		dc.LastPoll = req.now
		if tooSoon {
			// "the interval MUST be increased by 5 seconds for this and all
			// subsequent requests"
			dc.Interval += slowDownStep
			oerr = badRequest(errSlowDown, "Polling too fast; wait the interval, now 5 seconds longer, between requests")
		} else {
			oerr = badRequest(errAuthorizationPending, "The person has not yet approved or denied the request")
		}
		return tx.PutDeviceCode(digest, dc)
	})
	if err != nil {
		s.log.Error("device grant", "err", err)
		return nil, serverError()
	}
	return resp, oerr
}
