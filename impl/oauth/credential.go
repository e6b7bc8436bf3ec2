package oauth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/conform-mcp/conform/impl/caller"
	"github.com/conform-mcp/conform/impl/store"
)

// ErrInvalidCredential is wrapped by every error Verify returns for a
// credential it does not accept. Gate 2 answers all of them with the same 401
// (source section 7.2: "The body is the same for every cause").
var ErrInvalidCredential = errors.New("credential rejected")

// A token is 32 random bytes followed by a 16-byte tag, an HMAC under the
// instance secret, all base64url without padding (64 characters). The store
// keeps only the token's SHA-256, so the tag is what binds a token to the
// instance that issued it (source section 5.2): another instance's secret
// cannot produce it, and Verify refuses a foreign or malformed token before
// touching the store.
const (
	tokenRandomLen = 32
	tokenTagLen    = 16
	tokenLen       = 64 // base64.RawURLEncoding.EncodedLen(tokenRandomLen + tokenTagLen)
)

// Token kinds, mixed into the tag so a refresh token is never accepted where
// a credential is expected, and the reverse.
const (
	kindCredential = "credential"
	kindRefresh    = "refresh_token"
)

// mint returns a new token of the given kind and its digest.
func (s *Server) mint(kind string) (string, store.Digest) {
	raw := make([]byte, tokenRandomLen, tokenRandomLen+tokenTagLen)
	_, _ = rand.Read(raw) // crypto/rand.Read never fails (Go 1.24+)
	raw = append(raw, s.mac(kind, string(raw))[:tokenTagLen]...)
	token := base64.RawURLEncoding.EncodeToString(raw)
	return token, store.DigestOf(token)
}

// authentic reports whether token is well formed and carries this instance's
// tag for kind. The comparison is constant-time.
func (s *Server) authentic(kind, token string) bool {
	if len(token) != tokenLen {
		return false
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) != tokenRandomLen+tokenTagLen {
		return false
	}
	want := s.mac(kind, string(raw[:tokenRandomLen]))[:tokenTagLen]
	return hmac.Equal(raw[tokenRandomLen:], want)
}

// mac is HMAC-SHA256 under the instance secret over a label and parts, each
// length-prefixed so that no two different inputs share an encoding.
func (s *Server) mac(label string, parts ...string) []byte {
	h := hmac.New(sha256.New, s.secret)
	var n [8]byte
	for _, p := range append([]string{label}, parts...) {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return h.Sum(nil)
}

// randomString returns n random bytes, base64url encoded: used for client
// ids, device codes, authorization codes and grant ids.
func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Verify returns the caller a credential was issued to. It fails, wrapping
// ErrInvalidCredential, for a malformed token, one issued by another instance,
// one never issued or since revoked, and one past its expiry. Device-grant
// credentials never expire (source sections 3 and 5.8).
func (s *Server) Verify(ctx context.Context, token string) (caller.Caller, error) {
	if !s.authentic(kindCredential, token) {
		return caller.Caller{}, fmt.Errorf("%w: malformed or issued by another instance", ErrInvalidCredential)
	}
	if err := ctx.Err(); err != nil {
		return caller.Caller{}, fmt.Errorf("verify credential: %w", err)
	}
	var (
		cred  store.Credential
		found bool
	)
	err := s.store.View(func(tx *store.Tx) error {
		var err error
		cred, found, err = tx.Credential(store.DigestOf(token))
		return err
	})
	if err != nil {
		return caller.Caller{}, fmt.Errorf("verify credential: %w", err)
	}
	if !found {
		return caller.Caller{}, fmt.Errorf("%w: unknown or revoked", ErrInvalidCredential)
	}
	if !cred.ExpiresAt.IsZero() && !s.clock.Now().Before(cred.ExpiresAt) {
		return caller.Caller{}, fmt.Errorf("%w: expired", ErrInvalidCredential)
	}
	return caller.Caller{ClientID: cred.ClientID, Role: cred.Role}, nil
}
