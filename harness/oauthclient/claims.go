package oauthclient

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Claims reads the payload of a token that is a JWT whose claims can be read
// without a key (RFC 7519 section 3); ok is false for any other token. The
// harness only reads what the token says of itself, to check a premise
// (an expiry, an audience); it verifies nothing.
func Claims(token string) (map[string]any, bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, false
	}
	var claims map[string]any
	if json.Unmarshal(payload, &claims) != nil {
		return nil, false
	}
	return claims, true
}

// Audience is a JWT's aud claim (RFC 7519 4.1.3), a string or a list.
func Audience(claims map[string]any) []string {
	switch aud := claims["aud"].(type) {
	case string:
		return []string{aud}
	case []any:
		var out []string
		for _, v := range aud {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
