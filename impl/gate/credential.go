package gate

import (
	"context"
	"strings"

	"github.com/conform-mcp/conform/impl/caller"
)

// verify is gate 2. Source 5.1: the credential is the Authorization header;
// it must be exactly one Bearer credential (RFC 6750 2.1) that the verifier
// accepts. Anything else, an empty value, another scheme, a malformed or
// unknown token, is refused, never downgraded to anonymous.
func (g *gate) verify(ctx context.Context, values []string) (caller.Caller, bool) {
	if len(values) != 1 || g.cfg.Verifier == nil {
		return caller.Caller{}, false
	}
	token, ok := bearerToken(values[0])
	if !ok {
		return caller.Caller{}, false
	}
	c, err := g.cfg.Verifier.Verify(ctx, token)
	// A verified caller with no identity would look anonymous to the tools
	// behind the gate; treat it as a refusal.
	if err != nil || c.Anonymous() {
		return caller.Caller{}, false
	}
	return c, true
}

// bearerToken extracts the b64token of "Bearer <token>". RFC 7235 2.1: the
// scheme is case-insensitive; RFC 6750 2.1 fixes the token's characters.
func bearerToken(value string) (string, bool) {
	scheme, rest, found := strings.Cut(value, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token := strings.TrimLeft(rest, " ")
	if !isB64Token(token) {
		return "", false
	}
	return token, true
}

// isB64Token reports whether s is 1*( ALPHA / DIGIT / "-" / "." / "_" / "~"
// / "+" / "/" ) *"=" (RFC 6750 2.1).
func isB64Token(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for _, r := range body {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		case strings.ContainsRune("-._~+/", r):
		default:
			return false
		}
	}
	return true
}
