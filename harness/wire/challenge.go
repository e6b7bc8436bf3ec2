package wire

import (
	"slices"
	"strings"
)

// Challenge is one auth challenge of a WWW-Authenticate header (RFC 9110
// section 11.6.1): a scheme and its auth-params.
type Challenge struct {
	// Scheme is the auth-scheme as sent (compare it case-insensitively).
	Scheme string
	// Params are the auth-params, names in lower case; a name sent more
	// than once keeps its last value.
	Params map[string]string
	// Repeated are the names (lower case) sent more than once, each once,
	// in the order their second occurrence came: RFC 6750 section 3 allows
	// realm, scope, error, error_description and error_uri once each.
	Repeated []string
}

// ParseChallenges reads a WWW-Authenticate value that may hold several
// challenges: `Bearer realm="x", resource_metadata="u", Basic realm="y"`.
// Parameter names are case-insensitive; values may be tokens or quoted strings;
// whitespace may surround the '='.
func ParseChallenges(v string) []Challenge {
	var out []Challenge
	s := v
	for {
		s = strings.TrimLeft(s, " ,\t")
		if s == "" {
			return out
		}
		end := strings.IndexAny(s, " ,\t")
		if end < 0 {
			end = len(s)
		}
		cur := Challenge{Scheme: s[:end], Params: map[string]string{}}
		s = s[end:]
		for {
			rest := strings.TrimLeft(s, " ,\t")
			end := strings.IndexAny(rest, " ,\t=")
			if end < 0 {
				end = len(rest)
			}
			// RFC 9110 section 11.2: auth-param = token BWS "=" BWS value. A
			// token followed by something other than '=' starts the next challenge.
			after := strings.TrimLeft(rest[end:], " \t")
			if end == 0 || !strings.HasPrefix(after, "=") {
				break
			}
			name := strings.ToLower(rest[:end])
			rest = strings.TrimLeft(after[1:], " \t")
			var val string
			if strings.HasPrefix(rest, `"`) {
				var b strings.Builder
				i := 1
				for ; i < len(rest) && rest[i] != '"'; i++ {
					if rest[i] == '\\' && i+1 < len(rest) {
						i++
					}
					b.WriteByte(rest[i])
				}
				val = b.String()
				if i < len(rest) {
					i++
				}
				rest = rest[i:]
			} else {
				e := strings.IndexAny(rest, " ,\t")
				if e < 0 {
					e = len(rest)
				}
				val, rest = rest[:e], rest[e:]
			}
			if _, seen := cur.Params[name]; seen && !slices.Contains(cur.Repeated, name) {
				cur.Repeated = append(cur.Repeated, name)
			}
			cur.Params[name] = val
			s = rest
		}
		out = append(out, cur)
	}
}

// ChallengeParam returns the value of param in the first challenge of scheme
// among WWW-Authenticate values, or "" when there is none. Source 7.2 names
// the one the suite needs: resource_metadata of the Bearer challenge.
func ChallengeParam(values []string, scheme, param string) string {
	param = strings.ToLower(param)
	for _, v := range values {
		for _, c := range ParseChallenges(v) {
			if value, ok := c.Params[param]; ok && strings.EqualFold(c.Scheme, scheme) {
				return value
			}
		}
	}
	return ""
}
