package oauth

import (
	"time"

	"github.com/conform-mcp/conform/impl/store"
)

// Lifetimes. The first two are the source document's (sections 3 and 8); the
// rest are the reference host's.
const (
	// unusedClientLifetime: "A registration that is never used in a completed
	// authorization is removed after seven days."
	unusedClientLifetime = 7 * 24 * time.Hour
	// deviceCodeLifetime: "Device code ... Valid for a five-minute window."
	deviceCodeLifetime = 5 * time.Minute
	// deviceInterval is the initial minimum polling interval (RFC 8628
	// section 3.2, "interval").
	deviceInterval = 5 * time.Second
	// slowDownStep is how much a slow_down adds to the interval (RFC 8628
	// section 3.5: "the interval MUST be increased by 5 seconds").
	slowDownStep = 5 * time.Second
	// authCodeLifetime: RFC 6749 section 4.1.2 recommends at most ten minutes;
	// a redirect to a native app takes seconds.
	authCodeLifetime = time.Minute
	// usedAuthCodeKept is how long a redeemed code is remembered so that a
	// replay can revoke what it issued (RFC 6749 section 4.1.2).
	usedAuthCodeKept = 24 * time.Hour
	// authCodeAccessLifetime bounds credentials from the authorization code
	// grant, which come with a refresh token; device-grant credentials have
	// no expiry (source section 3).
	authCodeAccessLifetime = time.Hour
	// spentRefreshKept is how long a rotated refresh token is remembered so
	// that a replay can revoke its grant (RFC 9700 section 4.14.2).
	spentRefreshKept = 7 * 24 * time.Hour
	// sweepEvery is how often expired records are deleted from the store.
	// Expiry itself is decided at every lookup, so the sweep only reclaims space.
	sweepEvery = time.Hour
)

// clientAlive applies the unused-registration lifetime: a registration that
// completed an authorization is kept; any other is gone from the moment seven
// days have passed since it was created.
func clientAlive(c store.Client, now time.Time) bool {
	return c.Used || now.Before(c.CreatedAt.Add(unusedClientLifetime))
}

// lookupClient returns the registration with the given client_id if it exists
// and is still alive at now.
func lookupClient(tx *store.Tx, id string, now time.Time) (store.Client, bool, error) {
	if id == "" {
		return store.Client{}, false, nil
	}
	c, ok, err := tx.Client(id)
	if err != nil || !ok || !clientAlive(c, now) {
		return store.Client{}, false, err
	}
	return c, true, nil
}

// maybeSweep sweeps if the last sweep is older than sweepEvery. It runs on
// the request path of the OAuth endpoints rather than in a goroutine, so the
// server owns no background work and follows the injected clock.
func (s *Server) maybeSweep(now time.Time) {
	// A request arriving while another sweeps goes on without waiting.
	if !s.sweepMu.TryLock() {
		return
	}
	defer s.sweepMu.Unlock()
	if now.Before(s.nextSweep) {
		return
	}
	s.nextSweep = now.Add(sweepEvery)
	s.polls.sweep(now)
	if err := s.sweep(now); err != nil {
		s.log.Error("sweep expired records", "err", err)
	}
}

// sweep deletes, in one transaction, every record that can no longer be used:
// unused registrations past their lifetime, device codes past their window,
// authorization codes and spent refresh tokens past the replay memory,
// expired credentials, and the owner's expired sessions and unposted forms.
func (s *Server) sweep(now time.Time) error {
	return s.store.Update(func(tx *store.Tx) error {
		var clients []string
		var devices, codes, creds []store.Digest
		if err := tx.Clients(func(c store.Client) error {
			if !clientAlive(c, now) {
				clients = append(clients, c.ID)
			}
			return nil
		}); err != nil {
			return err
		}
		if err := tx.DeviceCodes(func(d store.Digest, c store.DeviceCode) error {
			if !now.Before(c.ExpiresAt) {
				devices = append(devices, d)
			}
			return nil
		}); err != nil {
			return err
		}
		if err := tx.AuthCodes(func(d store.Digest, c store.AuthCode) error {
			if !now.Before(c.IssuedAt.Add(usedAuthCodeKept)) {
				codes = append(codes, d)
			}
			return nil
		}); err != nil {
			return err
		}
		if err := tx.Credentials(func(d store.Digest, c store.Credential) error {
			if !c.ExpiresAt.IsZero() && !now.Before(c.ExpiresAt) {
				creds = append(creds, d)
			}
			return nil
		}); err != nil {
			return err
		}
		var spent []store.Digest
		if err := tx.RefreshTokens(func(d store.Digest, rt store.RefreshToken) error {
			if !rt.SpentAt.IsZero() && !now.Before(rt.SpentAt.Add(spentRefreshKept)) {
				spent = append(spent, d)
			}
			return nil
		}); err != nil {
			return err
		}
		for _, d := range spent {
			if err := tx.DeleteRefreshToken(d); err != nil {
				return err
			}
		}
		sessions, forms, err := expiredOwnerRecords(tx, now)
		if err != nil {
			return err
		}
		for _, d := range sessions {
			if err := tx.DeleteOwnerSession(d); err != nil {
				return err
			}
		}
		for _, d := range forms {
			if err := tx.DeleteConsentForm(d); err != nil {
				return err
			}
		}
		for _, id := range clients {
			if err := tx.DeleteClient(id); err != nil {
				return err
			}
		}
		for _, d := range devices {
			if err := tx.DeleteDeviceCode(d); err != nil {
				return err
			}
		}
		for _, d := range codes {
			if err := tx.DeleteAuthCode(d); err != nil {
				return err
			}
		}
		for _, d := range creds {
			if err := tx.DeleteCredential(d); err != nil {
				return err
			}
		}
		if n := len(clients) + len(devices) + len(codes) + len(creds) + len(spent) + len(sessions) + len(forms); n > 0 {
			s.log.Info("swept expired records", "clients", len(clients), "device_codes", len(devices),
				"authorization_codes", len(codes), "credentials", len(creds),
				"spent_refresh_tokens", len(spent), "owner_sessions", len(sessions), "consent_forms", len(forms))
		}
		return nil
	})
}

// expiredOwnerRecords lists the owner sessions and consent forms past their
// expiry.
func expiredOwnerRecords(tx *store.Tx, now time.Time) (sessions, forms []store.Digest, err error) {
	err = tx.OwnerSessions(func(d store.Digest, s store.OwnerSession) error {
		if !now.Before(s.ExpiresAt) {
			sessions = append(sessions, d)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	err = tx.ConsentForms(func(d store.Digest, f store.ConsentForm) error {
		if !now.Before(f.ExpiresAt) {
			forms = append(forms, d)
		}
		return nil
	})
	return sessions, forms, err
}
