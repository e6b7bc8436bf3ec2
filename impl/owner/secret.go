// Package owner keeps the reference host's owner secret: the one value that
// lets a person sign in to the consent pages and approve a sign-in (RFC 8628
// section 5, RFC 9700). It is created at first start with a strong random
// value and written to a file inside the data directory that only the
// host's user may read, as with an SSH key: the file's permission is the
// protection. The store keeps only its digest. TOOLHOST_OWNER_SECRET may set
// the secret instead, for hosts whose data directory is not theirs to read
// (containers, CI).
package owner

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/trustelem/zxcvbn"

	"github.com/conform-mcp/conform/impl/store"
)

// FileName is the owner secret's file inside the data directory.
const FileName = "owner-secret"

// EnvVar names the environment variable that may set the secret instead.
const EnvVar = "TOOLHOST_OWNER_SECRET"

// MinBits is the least estimated strength accepted, in bits (log2 of the
// guesses an attacker needs). The store keeps a plain SHA-256 of the secret,
// and the sign-in page answers a correct secret even while wrong ones meet
// the throttle, so that wrong tries at a shared address never lock the owner
// out (PRODUCT.md section 6): both are sound only when guessing is hopeless
// at any rate. A secret of fewer than 10 different characters was refused
// before, which let passwordpasswordpassword12345678 through; it was found
// at guess 80,001 (issue 26 item 3). 128 bits is what a random key of 16
// bytes has; the generated secret has 256.
const MinBits = 128

// estimatedLen bounds how much of a secret is given to the estimator, whose
// time grows faster than the length (0.1 s at 128 characters, minutes at a
// few thousand). A longer secret is judged by its first estimatedLen bytes:
// what follows can only add to its strength.
const estimatedLen = 128

// Strength is the estimated strength of secret in bits: log2 of the guesses
// zxcvbn, a pattern-matching estimator modelled on password crackers,
// expects an attacker to need (dictionary words, names, keyboard walks,
// repeats, sequences, dates and l33t spellings are all guessed early).
func Strength(secret string) float64 {
	if len(secret) > estimatedLen {
		cut := estimatedLen
		for cut > 0 && !utf8.RuneStart(secret[cut]) {
			cut--
		}
		secret = secret[:cut]
	}
	guesses := zxcvbn.PasswordStrength(secret, nil).Guesses
	if guesses < 1 {
		// The estimator answers 0 for text that is not UTF-8.
		return 0
	}
	return math.Log2(guesses)
}

// Check says why secret cannot serve as the owner secret, or nil.
func Check(secret string) error {
	if bits := Strength(secret); bits < MinBits {
		return fmt.Errorf("the owner secret is too easy to guess: its estimated strength is %.0f bits, at least %d are needed; use random text such as openssl rand -hex 32 gives", math.Floor(bits), MinBits)
	}
	return nil
}

// Prepare decides the owner secret of the host whose data directory is dir
// and records its digest in st. A given secret (from EnvVar) is used as is;
// otherwise the file in dir is, created with a new random secret when
// missing. It returns the file's path, or "" when the secret was given.
// Replacing the file and restarting the host changes the secret and ends
// every owner session signed in with the old one (store.Tx.PutOwnerSecret).
func Prepare(st *store.Store, dir, given string) (string, error) {
	secret, path := given, ""
	if given == "" {
		path = filepath.Join(dir, FileName)
		var err error
		if secret, err = readFile(path); errors.Is(err, fs.ErrNotExist) {
			secret, err = create(path)
		}
		if err != nil {
			return "", err
		}
	}
	if err := Check(secret); err != nil {
		return "", fmt.Errorf("owner secret: %w", err)
	}
	if err := st.Update(func(tx *store.Tx) error { return tx.PutOwnerSecret(store.DigestOf(secret)) }); err != nil {
		return "", fmt.Errorf("owner secret: %w", err)
	}
	return path, nil
}

// Read returns the owner secret for a command that acts as the owner: the
// given one (from EnvVar) when set, otherwise the one in dir's file. It never
// creates a secret.
func Read(dir, given string) (string, error) {
	if given != "" {
		return given, Check(given)
	}
	if dir == "" {
		return "", fmt.Errorf("no owner secret: give the host's data directory (--data) or set %s", EnvVar)
	}
	secret, err := readFile(filepath.Join(dir, FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("no owner secret: %s does not exist; give the host's data directory (--data) or set %s",
			filepath.Join(dir, FileName), EnvVar)
	}
	return secret, err
}

// readFile reads the secret file, refusing one that others may read: a
// secret others can read protects nothing.
func readFile(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("owner secret: %w", err)
	}
	if info.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("owner secret: %s may be read by others (mode %04o); run chmod 600 %s", path, info.Mode().Perm(), path)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("owner secret: %w", err)
	}
	return strings.TrimSpace(string(raw)), nil
}

// create writes a new random secret to path, readable by its owner only. It
// never replaces an existing file.
func create(path string) (string, error) {
	// 256 bits, written in hex: 64 characters the estimator judges at
	// about 200 bits, far from MinBits, where base64's 43 come near 136.
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	secret := hex.EncodeToString(b)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("owner secret: %w", err)
	}
	if _, err := f.WriteString(secret + "\n"); err != nil {
		_ = f.Close()
		return "", fmt.Errorf("owner secret: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("owner secret: %w", err)
	}
	return secret, nil
}
