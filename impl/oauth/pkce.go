package oauth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
)

// validVerifier checks the code_verifier syntax of RFC 7636 section 4.1:
// 43 to 128 characters from [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~".
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for _, c := range []byte(v) {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// validChallenge checks that an S256 code_challenge is what RFC 7636 section
// 4.2 produces: the unpadded base64url of a SHA-256, 43 characters.
func validChallenge(c string) bool {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	return err == nil && len(raw) == sha256.Size
}

// verifierMatches applies the S256 transformation (RFC 7636 section 4.6) and
// compares in constant time.
func verifierMatches(verifier, challenge string) bool {
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}
