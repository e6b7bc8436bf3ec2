package store

import "time"

// keyOwnerSecret holds the Digest of the owner secret: the store never keeps
// the secret itself, only what verifies it.
var keyOwnerSecret = []byte("owner_secret")

// OwnerSession is a signed-in owner's session on the consent pages, keyed by
// the Digest of the session cookie's value.
type OwnerSession struct {
	// CreatedAt is when the owner signed in.
	CreatedAt time.Time `json:"created_at"`
	// ExpiresAt ends the session; the owner signs in again after it.
	ExpiresAt time.Time `json:"expires_at"`
}

// ConsentForm is one rendered consent form, keyed by the Digest of its CSRF
// token. It is deleted when the form is posted, so a form approves once.
type ConsentForm struct {
	// Session is the Digest of the session the form was rendered for; a post
	// from any other session is refused.
	Session Digest `json:"session"`
	// Binding names what the form decides (the user code, or the
	// authorization request), so a token cannot approve anything else.
	Binding string `json:"binding"`
	// ExpiresAt is when the form stops being accepted.
	ExpiresAt time.Time `json:"expires_at"`
}

// OwnerSecret returns the Digest of the owner secret, and false when none
// has been set.
func (t *Tx) OwnerSecret() (Digest, bool) {
	var d Digest
	raw := t.tx.Bucket(bucketMeta).Get(keyOwnerSecret)
	if len(raw) != len(d) {
		return d, false
	}
	copy(d[:], raw)
	return d, true
}

// PutOwnerSecret replaces the Digest of the owner secret. When it differs
// from the one kept, every owner session and consent form is deleted in the
// same transaction: rotating the secret is how an operator locks out whoever
// learned the old one, which a session signed in with it would outlive.
func (t *Tx) PutOwnerSecret(d Digest) error {
	old, ok := t.OwnerSecret()
	if ok && old == d {
		return nil
	}
	if ok {
		if err := emptyBucket(t, bucketOwnerSessions); err != nil {
			return err
		}
		if err := emptyBucket(t, bucketConsentForms); err != nil {
			return err
		}
	}
	t.wrote = true
	return t.tx.Bucket(bucketMeta).Put(keyOwnerSecret, d[:])
}

// emptyBucket deletes every key of a bucket and keeps the bucket.
func emptyBucket(t *Tx, bucket []byte) error {
	t.wrote = true
	if err := t.tx.DeleteBucket(bucket); err != nil {
		return err
	}
	_, err := t.tx.CreateBucket(bucket)
	return err
}

// OwnerSession returns the session whose cookie value has digest d.
func (t *Tx) OwnerSession(d Digest) (OwnerSession, bool, error) {
	return get[OwnerSession](t.tx, bucketOwnerSessions, d[:])
}

// PutOwnerSession stores s under d.
func (t *Tx) PutOwnerSession(d Digest, s OwnerSession) error {
	return t.put(bucketOwnerSessions, d[:], s)
}

// DeleteOwnerSession ends the session under d.
func (t *Tx) DeleteOwnerSession(d Digest) error {
	return t.del(bucketOwnerSessions, d[:])
}

// OwnerSessions calls fn for every session.
func (t *Tx) OwnerSessions(fn func(Digest, OwnerSession) error) error {
	return each(t.tx, bucketOwnerSessions, func(k []byte, s OwnerSession) error { return fn(digest(k), s) })
}

// ConsentForm returns the rendered form whose CSRF token has digest d.
func (t *Tx) ConsentForm(d Digest) (ConsentForm, bool, error) {
	return get[ConsentForm](t.tx, bucketConsentForms, d[:])
}

// PutConsentForm stores f under d.
func (t *Tx) PutConsentForm(d Digest, f ConsentForm) error {
	return t.put(bucketConsentForms, d[:], f)
}

// DeleteConsentForm spends the form under d.
func (t *Tx) DeleteConsentForm(d Digest) error {
	return t.del(bucketConsentForms, d[:])
}

// ConsentForms calls fn for every rendered form not yet posted.
func (t *Tx) ConsentForms(fn func(Digest, ConsentForm) error) error {
	return each(t.tx, bucketConsentForms, func(k []byte, f ConsentForm) error { return fn(digest(k), f) })
}
