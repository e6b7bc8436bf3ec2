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
	"os"
	"path/filepath"
	"strings"

	"github.com/conform-mcp/conform/impl/store"
)

// FileName is the owner secret's file inside the data directory.
const FileName = "owner-secret"

// EnvVar names the environment variable that may set the secret instead.
const EnvVar = "TOOLHOST_OWNER_SECRET"

// Judge says why a secret cannot serve as the owner secret, or nil: in the
// reference host's command, strength.Check. Only a secret that came from
// outside the host (given, or a file already there) is judged; one the host
// creates has 256 random bits by construction.
type Judge func(secret string) error

// Prepare decides the owner secret of the host whose data directory is dir
// and records its digest in st. A given secret (from EnvVar) is used as is;
// otherwise the file in dir is, created with a new random secret when
// missing. A secret given or found in a file must pass judge; without a
// judge, only a secret Prepare creates is taken. It returns the file's
// path, or "" when the secret was given. Replacing the file and restarting
// the host changes the secret and ends every owner session signed in with
// the old one (store.Tx.PutOwnerSecret).
func Prepare(st *store.Store, dir, given string, judge Judge) (string, error) {
	secret, path, created := given, "", false
	if given == "" {
		path = filepath.Join(dir, FileName)
		var err error
		if secret, err = readFile(path); errors.Is(err, fs.ErrNotExist) {
			secret, err = create(path)
			created = err == nil
		}
		if err != nil {
			return "", err
		}
	}
	if !created {
		if err := judged(secret, judge); err != nil {
			return "", fmt.Errorf("owner secret: %w", err)
		}
	}
	if err := st.Update(func(tx *store.Tx) error { return tx.PutOwnerSecret(store.DigestOf(secret)) }); err != nil {
		return "", fmt.Errorf("owner secret: %w", err)
	}
	return path, nil
}

// Read returns the owner secret for a command that acts as the owner: the
// given one (from EnvVar) when set, which must pass judge, otherwise the one
// in dir's file. It never creates a secret.
func Read(dir, given string, judge Judge) (string, error) {
	if given != "" {
		return given, judged(given, judge)
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

// judged is judge's verdict on secret; with no judge, every secret is
// refused: a host that cannot judge a secret takes none it did not create.
func judged(secret string, judge Judge) error {
	if judge == nil {
		return errors.New("no strength check to judge a secret the host did not create")
	}
	return judge(secret)
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
	// about 200 bits, far from strength.MinBits, where base64's 43 come
	// near 136.
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
