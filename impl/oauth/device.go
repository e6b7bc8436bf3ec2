package oauth

import (
	"crypto/rand"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/conform-mcp/conform/impl/role"
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
	// RFC 8628 section 5.2: every device authorization stores a record and
	// shows a code to guess, so the endpoint is limited per source address
	// (here, before anything else is looked at) and per client (below).
	if ok, wait := s.deviceByPeer.allow(s.peerKey(r), now); !ok {
		tooMany(w, wait, "Too many device authorizations from this address; wait and try again")
		return
	}
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
	var retry time.Duration
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
		pending, err := pendingFor(tx, client.ID, now)
		if err != nil {
			return err
		}
		if pending >= maxPendingPerClient {
			oerr, retry = &oauthError{status: http.StatusTooManyRequests, Code: errTooManyRequests,
				Description: "Too many pending device authorizations for this client; finish one or let it expire"}, deviceCodeLifetime
			return nil
		}
		if ok, wait := s.deviceByClient.allow(client.ID, now); !ok {
			oerr, retry = &oauthError{status: http.StatusTooManyRequests, Code: errTooManyRequests,
				Description: "Too many device authorizations for this client; wait and try again"}, wait
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
				Scope:     strings.Join(role.Requested(form.Get("scope")), " "),
			})
			if !errors.Is(err, store.ErrUserCodeTaken) {
				return err
			}
		}
		return err
	})
	if err != nil {
		s.log.Error("start device authorization", "err", err)
		writeError(w, serverError(err))
		return
	}
	if oerr != nil {
		if retry > 0 {
			setRetryAfter(w, retry)
		}
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

// maxPendingPerClient caps the device authorizations one client may have
// waiting for consent at once: each is a record in the store and a code on
// the verification page.
const maxPendingPerClient = 10

// pendingFor counts the client's device authorizations still waiting for
// consent inside their window.
func pendingFor(tx *store.Tx, clientID string, now time.Time) (int, error) {
	n := 0
	err := tx.DeviceCodes(func(_ store.Digest, dc store.DeviceCode) error {
		if dc.ClientID == clientID && dc.Status == store.DevicePending && now.Before(dc.ExpiresAt) {
			n++
		}
		return nil
	})
	return n, err
}

// tooMany answers 429 with Retry-After and an RFC 6749-style body, as
// registration throttling does (PRODUCT.md section 6).
func tooMany(w http.ResponseWriter, wait time.Duration, description string) {
	setRetryAfter(w, wait)
	writeJSON(w, http.StatusTooManyRequests, &oauthError{Code: errTooManyRequests, Description: description})
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
// invalid_grant with the source's text (section 7.3), as is a code presented
// by another client, while a request naming no client is invalid_request; a
// denied or locked one is access_denied; a pending one is slow_down when polled sooner than the
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
	err := s.viewThenUpdate(func(tx *store.Tx, write bool) (bool, error) {
		resp, oerr = nil, nil
		dc, ok, err := tx.DeviceCode(digest)
		if err != nil {
			return false, err
		}
		// The window is [issued, issued+5m): at five minutes it is over.
		if !ok || !req.now.Before(dc.ExpiresAt) {
			oerr = invalid
			return true, nil
		}
		// RFC 8628 section 3.4: a public client names itself with client_id,
		// and the code is redeemed only by the client it was issued to.
		switch {
		case req.clientID == "":
			oerr = badRequest(errInvalidRequest, "Missing client_id: a device code is redeemed by the client it was issued to")
			return true, nil
		case req.clientID != dc.ClientID:
			oerr = invalid
			return true, nil
		}
		client, ok, err := lookupClient(tx, dc.ClientID, req.now)
		if err != nil {
			return false, err
		}
		if !ok {
			oerr = invalid
			return true, nil
		}
		if !allowsGrant(client, grantDevice) {
			oerr = badRequest(errUnauthorizedClient, "The client did not register for the device_code grant")
			return true, nil
		}
		switch dc.Status {
		case store.DeviceDenied:
			oerr = badRequest(errAccessDenied, "The authorization request was denied")
			return true, nil
		case store.DeviceLocked:
			oerr = badRequest(errAccessDenied, "The authorization request was locked after repeated failed approval attempts; start again")
			return true, nil
		}
		if dc.Status != store.DeviceApproved {
			// Pending: the answer changes nothing in the store; the poll's
			// timing is kept in memory (polls).
			if s.polls.record(digest, dc, req.now) {
				oerr = badRequest(errSlowDown, "Polling too fast; wait the interval, now 5 seconds longer, between requests")
			} else {
				oerr = badRequest(errAuthorizationPending, "The person has not yet approved or denied the request")
			}
			return true, nil
		}
		// An approved code is redeemed once: deleting it with the issue
		// makes every later poll invalid_grant.
		if !write {
			return false, nil
		}
		if err := tx.DeleteDeviceCode(digest); err != nil {
			return false, err
		}
		s.polls.forget(digest)
		resp, err = s.issue(tx, client, dc.Role, randomString(16), req.now, grantOutput{})
		return true, err
	})
	if err != nil {
		s.log.Error("device grant", "err", err)
		return nil, serverError(err)
	}
	return resp, oerr
}
