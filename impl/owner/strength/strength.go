// Package strength judges a secret that a person chose: the owner secret
// given to the reference host, or written to its file, must make guessing
// hopeless at any rate (package owner). It holds the estimator apart from
// package owner because the estimator's dictionaries are built when its
// package initialises (about 25 ms and 10 MB): a process that only creates
// its own random secrets, as conform's in-process hosts do, never links it.
package strength

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/trustelem/zxcvbn"
)

// MinBits is the least estimated strength accepted, in bits (log2 of the
// guesses an attacker needs). The store keeps a plain SHA-256 of the secret,
// and the sign-in page answers a correct secret even while wrong ones meet
// the throttle, so that wrong tries at a shared address never lock the owner
// out (PRODUCT.md section 6): both are sound only when guessing is hopeless
// at any rate. A secret of fewer than 10 different characters was refused
// before, which let passwordpasswordpassword12345678 through; it was found
// at guess 80,001 (issue 26 item 3). 128 bits is what a random key of 16
// bytes has; the secret the host generates has 256.
const MinBits = 128

// estimatedLen bounds how much of a secret is given to the estimator, whose
// time grows faster than the length (0.1 s at 128 characters, minutes at a
// few thousand). A longer secret is judged by its first estimatedLen bytes:
// what follows can only add to its strength.
const estimatedLen = 128

// Bits is the estimated strength of secret in bits: log2 of the guesses
// zxcvbn, a pattern-matching estimator modelled on password crackers,
// expects an attacker to need (dictionary words, names, keyboard walks,
// repeats, sequences, dates and l33t spellings are all guessed early).
func Bits(secret string) float64 {
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

// Check says why secret cannot serve as the owner secret, or nil. It is the
// owner.Judge the reference host's command gives package owner.
func Check(secret string) error {
	if bits := Bits(secret); bits < MinBits {
		return fmt.Errorf("the owner secret is too easy to guess: its estimated strength is %.0f bits, at least %d are needed; use random text such as openssl rand -hex 32 gives", math.Floor(bits), MinBits)
	}
	return nil
}
