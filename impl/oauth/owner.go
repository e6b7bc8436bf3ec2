package oauth

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/conform-mcp/conform/impl/origin"
	"github.com/conform-mcp/conform/impl/store"
)

// The consent pages approve sign-ins, so only the host's owner may use them
// (RFC 8628 section 5, RFC 9700 section 4.4): the owner signs in with the
// owner secret (package owner), gets a session cookie, and each consent form
// is bound to that session and accepted once.
const (
	// sessionCookiePrefix starts the name of the owner's session cookie;
	// the port of the host's base URL ends it (sessionCookie). It is
	// HttpOnly and SameSite=Strict: no script reads it and no other site's
	// request carries it.
	sessionCookiePrefix = "toolhost_owner_"
	// ownerSessionLifetime bounds a session; the owner signs in again after it.
	ownerSessionLifetime = 12 * time.Hour
	// consentFormLifetime bounds how long a rendered form may be posted.
	consentFormLifetime = 10 * time.Minute
	// wrongTryBurst is how many failed tries one address may make on the
	// consent pages before it is answered 429; wrongTryEvery gives one more.
	wrongTryBurst = 10
	wrongTryEvery = time.Minute
	// maxUserCodeTries locks a user code after this many failed approval
	// attempts naming it: the device authorization is then refused.
	maxUserCodeTries = 5
	// failedSignInLogBurst lines about failed sign-ins are logged at once,
	// one more every failedSignInLogEvery: at most about 150 KB a day.
	failedSignInLogBurst = 10
	failedSignInLogEvery = time.Minute
)

// handleLogin is POST /oauth/login: the owner secret, from the sign-in page
// that stands in front of every consent page. On success it starts a
// session and sends the person back to the page they asked for.
//
// The wrong-tries throttle is looked at only once the secret proved wrong:
// the owner's correct secret is never refused for tries that wrong ones
// spent, which behind a shared address (a proxy, a NAT) would lock the owner
// out. The secret has at least 128 bits of estimated strength (strength.Check),
// so answering it while wrong ones meet 429 gives a guesser nothing they
// could use: no rate of guessing finds it.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	now := s.clock.Now()
	if !readConsentForm(w, r) {
		return
	}
	back := returnPath(r.PostForm.Get("return"))
	sameOrigin := s.sameOrigin(r)
	if !sameOrigin || !s.ownerSecretValid(r.PostForm.Get("secret")) {
		if s.refuseThrottled(w, r, now) {
			return
		}
		s.wrongTry(r, now, "")
		if !sameOrigin {
			writePage(w, http.StatusForbidden, crossSite)
			return
		}
		if ok, skipped := s.failedSignInLog.allow(now); ok {
			s.log.Warn("owner sign-in failed: wrong owner secret", "peer", s.peerKey(r), "not_logged_since_last", skipped)
		}
		writePage(w, http.StatusForbidden, page{Title: "Sign in as the owner", Error: true,
			Message: "That is not the owner secret of this host.", Login: &loginView{Return: back}})
		return
	}
	token := randomString(32)
	err := s.store.Update(func(tx *store.Tx) error {
		return tx.PutOwnerSession(store.DigestOf(token), store.OwnerSession{CreatedAt: now,
			ExpiresAt: now.Add(ownerSessionLifetime)})
	})
	if err != nil {
		s.log.Error("start owner session", "err", err)
		writePage(w, failedStatus(w, err), page{Title: "Something went wrong", Error: true,
			Message: "The sign-in could not be recorded. Try again."})
		return
	}
	s.log.Info("owner signed in", "peer", s.peerKey(r))
	http.SetCookie(w, &http.Cookie{Name: s.sessionCookie(r), Value: token, Path: "/oauth",
		MaxAge: int(ownerSessionLifetime / time.Second), HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: strings.HasPrefix(s.base.Of(r), "https://")})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// ownerSecretValid compares the digest of secret with the stored one in
// constant time. A host with no owner secret accepts none.
func (s *Server) ownerSecretValid(secret string) bool {
	if secret == "" {
		return false
	}
	var ok bool
	err := s.store.View(func(tx *store.Tx) error {
		want, set := tx.OwnerSecret()
		got := store.DigestOf(secret)
		ok = set && subtle.ConstantTimeCompare(got[:], want[:]) == 1
		return nil
	})
	return err == nil && ok
}

// sessionCookie names the owner's session cookie after the port of the
// host's base URL. Cookies do not keep ports apart (RFC 6265 section 8.5):
// two hosts on one name, on two ports, would each overwrite the other's
// session under one name.
func (s *Server) sessionCookie(r *http.Request) string {
	port := "80"
	if u, err := url.Parse(s.base.Of(r)); err == nil {
		switch {
		case u.Port() != "":
			port = u.Port()
		case u.Scheme == "https":
			port = "443"
		}
	}
	return sessionCookiePrefix + port
}

// ownerSession returns the digest of the request's live owner session.
func (s *Server) ownerSession(r *http.Request) (store.Digest, bool) {
	c, err := r.Cookie(s.sessionCookie(r))
	if err != nil || c.Value == "" {
		return store.Digest{}, false
	}
	d := store.DigestOf(c.Value)
	var live bool
	err = s.store.View(func(tx *store.Tx) error {
		sess, found, err := tx.OwnerSession(d)
		live = found && s.clock.Now().Before(sess.ExpiresAt)
		return err
	})
	return d, err == nil && live
}

// sameOrigin is the cross-site check of every consent POST. A browser says
// where a request comes from in Sec-Fetch-Site, a header no page can set, so
// when it is present it decides: only same-origin (or none, a navigation the
// person made) passes. Older browsers send only Origin, which must then
// name this host, judged by origin.Same as the MCP endpoint judges it; the pages' Referrer-Policy: no-referrer makes a browser
// send Origin: null, which only passes beside Sec-Fetch-Site. A client that
// sends neither (a command-line client) is judged by its session and form
// token alone.
func (s *Server) sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site == "same-origin" || site == "none"
	}
	value := r.Header.Get("Origin")
	if value == "" {
		return true
	}
	return origin.Same(value, s.base.Of(r))
}

// crossSite is the page a cross-site consent post receives.
var crossSite = page{Title: "Request not accepted", Error: true,
	Message: "This request came from another site. Open the page on this host and try again."}

// newForm records a consent form rendered for session that decides binding,
// and returns its CSRF token.
func (s *Server) newForm(session store.Digest, binding string) (string, error) {
	token := randomString(32)
	now := s.clock.Now()
	err := s.store.Update(func(tx *store.Tx) error {
		return tx.PutConsentForm(store.DigestOf(token), store.ConsentForm{Session: session, Binding: binding,
			ExpiresAt: now.Add(consentFormLifetime)})
	})
	return token, err
}

// spendForm accepts a posted form's CSRF token once: it must have been
// rendered for this session, for this decision, and not too long ago. The
// form is deleted whatever the outcome, so it can never be posted again.
func spendForm(tx *store.Tx, token string, session store.Digest, binding string, now time.Time) (bool, error) {
	if token == "" {
		return false, nil
	}
	d := store.DigestOf(token)
	f, found, err := tx.ConsentForm(d)
	if err != nil || !found {
		return false, err
	}
	if err := tx.DeleteConsentForm(d); err != nil {
		return false, err
	}
	return f.Session == session && f.Binding == binding && now.Before(f.ExpiresAt), nil
}

// refuseThrottled answers 429 to an address that has spent its wrong
// tries, unless the request carries the owner's live session: the owner
// signed in with the secret, and must not be locked out by tries that
// others sharing the address (behind a proxy or a NAT) got wrong.
func (s *Server) refuseThrottled(w http.ResponseWriter, r *http.Request, now time.Time) bool {
	throttled, wait := s.wrongTries.throttled(s.peerKey(r), now)
	if !throttled {
		return false
	}
	if _, signedIn := s.ownerSession(r); signedIn {
		return false
	}
	setRetryAfter(w, wait)
	writePage(w, http.StatusTooManyRequests, page{Title: "Too many tries", Error: true,
		Message: "Too many codes or secrets from this address were wrong. Wait a minute and try again."})
	return true
}

// wrongTry spends one of the address's wrong tries and, when the try named
// a pending user code and came with the owner's session (a forged or stale
// form posted from the owner's browser), counts it against that code,
// locking it at maxUserCodeTries: its device authorization is then refused
// (RFC 8628 section 5.1). A try without the owner's session counts against
// its address only: anyone may name a code, and five anonymous posts must
// not lock a sign-in the owner is about to approve.
func (s *Server) wrongTry(r *http.Request, now time.Time, userCode string) {
	s.wrongTries.allow(s.peerKey(r), now)
	if userCode == "" {
		return
	}
	if _, signedIn := s.ownerSession(r); !signedIn {
		return
	}
	err := s.store.Update(func(tx *store.Tx) error {
		d, dc, found, err := tx.DeviceCodeByUserCode(userCode)
		if err != nil || !found || dc.Status != store.DevicePending {
			return err
		}
		dc.FailedTries++
		if dc.FailedTries >= maxUserCodeTries {
			dc.Status = store.DeviceLocked
			s.log.Warn("user code locked after failed approval attempts", "client_id", dc.ClientID)
		}
		return tx.PutDeviceCode(d, dc)
	})
	if err != nil {
		s.log.Error("count a failed approval attempt", "err", err)
	}
}

// loginView is the sign-in form in front of the consent pages.
type loginView struct {
	// Return is the page to go back to once signed in.
	Return string
}

// askOwner shows the sign-in form that stands in front of a consent page.
func askOwner(w http.ResponseWriter, r *http.Request) {
	writePage(w, http.StatusOK, page{Title: "Sign in as the owner", Login: &loginView{Return: returnPath(r.URL.RequestURI())}})
}

// returnPath keeps a return target only when it is one of the consent pages
// of this host, so the sign-in form cannot send anyone elsewhere.
func returnPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil ||
		(u.Path != "/oauth/device" && u.Path != "/oauth/authorize") {
		return "/oauth/device"
	}
	if u.RawQuery == "" {
		return u.Path
	}
	return u.Path + "?" + u.RawQuery
}
