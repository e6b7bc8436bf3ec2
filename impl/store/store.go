// Package store keeps every piece of the reference host's authorization state
// in one embedded bbolt file, so a restart loses nothing (PRODUCT.md section 6,
// "Storage"): the instance identity, client registrations, device codes,
// authorization codes, credentials and refresh tokens, and the owner's
// secret (as a digest), sessions and rendered consent forms.
//
// Secrets handed to clients (device codes, authorization codes, credentials,
// refresh tokens) are keyed by their SHA-256 Digest; the secret itself is
// never written. Callers group related changes in one Update so a change that
// touches several records is stored whole or not at all.
package store

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// openTimeout bounds how long Open waits for the file lock. bbolt locks the
// file for one process; without a timeout a second host pointed at the same
// data directory would hang instead of saying why it cannot start.
const openTimeout = time.Second

var (
	bucketMeta          = []byte("meta")
	bucketClients       = []byte("clients")
	bucketDeviceCodes   = []byte("device_codes")
	bucketUserCodes     = []byte("user_codes")
	bucketAuthCodes     = []byte("authorization_codes")
	bucketCredentials   = []byte("credentials")
	bucketRefreshTokens = []byte("refresh_tokens")
	bucketOwnerSessions = []byte("owner_sessions")
	bucketConsentForms  = []byte("consent_forms")

	keyInstanceID = []byte("instance_id")
	keySecret     = []byte("secret")
)

// Identity is what makes one host instance distinct from another running the
// same software (source section 5.2: credentials are bound to the instance
// that issued them).
type Identity struct {
	// InstanceID names the instance; random, created on first open.
	InstanceID string
	// Secret keys the instance's MACs (credential tags, consent CSRF tokens).
	Secret []byte
}

// Store is an open data file. It is safe for concurrent use.
type Store struct {
	db       *bolt.DB
	identity Identity
	// journal holds new registrations not yet in db (journal.go).
	journal *journal
}

// Open opens the data file at path, creating it (mode 0600) and its directory
// (mode 0700) when missing. On first open it creates the instance identity.
// A file already held by another process is reported as "data directory in
// use" after a short wait rather than blocking forever.
func Open(path string) (*Store, error) { return open(path, false) }

// OpenTemporary is Open for a store that is removed with its host, as the
// in-process hosts of a conformance run are: it skips the fsync of every
// commit, because a file nobody reopens gains nothing from surviving a crash.
func OpenTemporary(path string) (*Store, error) { return open(path, true) }

func open(path string, noSync bool) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: openTimeout, NoSync: noSync})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("open store: data directory in use: %s is locked by another process", path)
	}
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	s := &Store{db: db}
	if err := db.Update(s.initialize); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	if s.journal, err = openJournal(path+journalSuffix, noSync); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	// What a crash left in the journal goes into the data file now.
	if err := s.Update(func(t *Tx) error { return t.fold() }); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	return s, nil
}

// journalSuffix names the registration journal after the data file.
const journalSuffix = ".registrations"

// initialize creates the buckets and, on first open, the identity.
func (s *Store) initialize(tx *bolt.Tx) error {
	for _, name := range [][]byte{bucketMeta, bucketClients, bucketDeviceCodes, bucketUserCodes,
		bucketAuthCodes, bucketCredentials, bucketRefreshTokens, bucketOwnerSessions, bucketConsentForms} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	meta := tx.Bucket(bucketMeta)
	if id, secret := meta.Get(keyInstanceID), meta.Get(keySecret); id != nil && secret != nil {
		s.identity = Identity{InstanceID: string(id), Secret: append([]byte(nil), secret...)}
		return nil
	}
	id := make([]byte, 16)
	secret := make([]byte, 32)
	if _, err := rand.Read(id); err != nil {
		return err
	}
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	s.identity = Identity{InstanceID: hex.EncodeToString(id), Secret: secret}
	if err := meta.Put(keyInstanceID, []byte(s.identity.InstanceID)); err != nil {
		return err
	}
	return meta.Put(keySecret, secret)
}

// Close releases the files, letting another process open them. The
// journal is left as it is: the next Open folds it.
func (s *Store) Close() error { return errors.Join(s.journal.f.Close(), s.db.Close()) }

// Identity returns this instance's identity. The caller must not modify the
// returned secret.
func (s *Store) Identity() Identity { return s.identity }

// View runs fn in a read-only transaction.
func (s *Store) View(fn func(*Tx) error) error {
	// Loaded before the transaction begins (journal.pending).
	pending := s.journal.snapshot()
	return s.db.View(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx, pending: pending}) })
}

// Update runs fn in a read-write transaction. If fn returns an error nothing
// it did is kept. A transaction in which fn changed no record is rolled
// back, not committed, so it writes nothing to the disk: a request that is
// refused or changes nothing costs no write (issue 26 item 4).
func (s *Store) Update(fn func(*Tx) error) error {
	s.journal.mu.Lock()
	defer s.journal.mu.Unlock()
	return s.update(fn)
}

// update is Update with s.journal.mu held. Once a transaction that folded
// the journal is committed (or found the data file already holding all of
// it), the journal is emptied.
func (s *Store) update(fn func(*Tx) error) error {
	var folded bool
	err := s.db.Update(func(tx *bolt.Tx) error {
		t := &Tx{tx: tx, pending: s.journal.snapshot()}
		if err := fn(t); err != nil {
			return err
		}
		folded = t.folded
		if !t.wrote {
			return errUnchanged
		}
		return nil
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	if err != nil || !folded {
		return err
	}
	return s.journal.folded()
}

// errUnchanged rolls back a transaction that changed nothing.
var errUnchanged = errors.New("store: nothing changed")

// Digest is the SHA-256 of a secret handed to a client: the only form in
// which the store keeps it.
type Digest [sha256.Size]byte

// DigestOf returns the Digest of secret.
func DigestOf(secret string) Digest { return sha256.Sum256([]byte(secret)) }

// ErrUserCodeTaken reports that a new device code drew a user code already in
// use; the caller draws another.
var ErrUserCodeTaken = errors.New("user code already in use")
