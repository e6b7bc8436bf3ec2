package steps

import (
	"fmt"
	"sort"
)

// The syntax of the error attributes servers send (MCP authorization.11 and
// authorization.3; OAuth 2.1 3.2.4, 4.1.2.1, 5.3.1; RFC 6750 3): error and
// error_description "MUST NOT include characters outside the set %x20-21 /
// %x23-5B / %x5D-7E", and error_uri, a URI reference, none outside %x21 /
// %x23-5B / %x5D-7E.

// errorAttributes are the members whose characters the rule limits.
var errorAttributes = []string{"error", "error_description", "error_uri"}

// outsideCharset returns the first character of an error attribute's value
// outside the set its name allows.
func outsideCharset(name, value string) (rune, bool) {
	for _, r := range value {
		allowed := r == 0x21 || r >= 0x23 && r <= 0x5B || r >= 0x5D && r <= 0x7E || r == 0x20 && name != "error_uri"
		if !allowed {
			return r, true
		}
	}
	return 0, false
}

// errorTextAllowed judges the error attributes an answer carries; what
// names the answer for the reasons. An answer with none has nothing to
// judge, and the scenario is not run.
func (st *authzState) errorTextAllowed(what string, attrs map[string]string, judge func(check, expected, actual string) error) error {
	if attrs["error"] == "" {
		return st.skip(fmt.Sprintf("the %s carries no error, so there are no error attributes to read", what))
	}
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if r, bad := outsideCharset(n, attrs[n]); bad {
			return judge(fmt.Sprintf("%s of the %s (OAuth 2.1 3.2.4, 4.1.2.1, 5.3.1; RFC 6750 3)", n, what),
				"only the characters %x20-21 / %x23-5B / %x5D-7E", fmt.Sprintf("%q, with %q (U+%04X)", attrs[n], r, r))
		}
	}
	return nil
}

// challengeErrorText judges the error attributes of the last reply's
// Bearer challenge.
func (st *authzState) challengeErrorText() error {
	h, err := st.needLast()
	if err != nil {
		return err
	}
	attrs := map[string]string{}
	if c := bearerIn(h.header.Values("WWW-Authenticate")); c != nil {
		for _, n := range errorAttributes {
			if v, ok := c.Params[n]; ok {
				attrs[n] = v
			}
		}
	}
	return st.errorTextAllowed("Bearer challenge", attrs, func(check, expected, actual string) error {
		return st.depart(check, expected, actual, h.lastExchange())
	})
}

// tokenErrorText judges the error members of the token endpoint's last
// answer.
func (st *authzState) tokenErrorText() error {
	r, err := st.needToken()
	if err != nil {
		return err
	}
	attrs := map[string]string{}
	for _, n := range errorAttributes {
		if v, ok := r.JSON[n].(string); ok {
			attrs[n] = v
		}
	}
	return st.errorTextAllowed("token error response", attrs, func(check, expected, actual string) error {
		return st.depart(check, expected, actual, r.Exchange)
	})
}

// authorizationErrorText judges the error parameters of the last
// authorization response, when it redirected to the redirect_uri.
func (st *authzState) authorizationErrorText() error {
	a, err := st.needAnswer()
	if err != nil {
		return err
	}
	attrs := map[string]string{}
	if a.redirected {
		for _, n := range errorAttributes {
			if a.params.Has(n) {
				attrs[n] = a.params.Get(n)
			}
		}
	}
	return st.errorTextAllowed("authorization error response", attrs, func(check, expected, actual string) error {
		return st.depart(check, expected, actual, a.ex)
	})
}
