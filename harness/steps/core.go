package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/wire"
)

// registerCore binds the steps every pack shares: who calls, and what any
// reply is judged by (its status, headers and body), over the scenario's
// one last reply; and the one form of a premise.
func (st *State) registerCore(sc stepContext) {
	sc.Step(`^an anonymous caller$`, st.anonymous)
	sc.Step(`^a caller presenting the Authorization header "([^"]*)"$`, st.withHeader)
	sc.Step(oneOf(`^a caller with `, st.credentials, `$`), func(ctx context.Context, which string) error { return st.credentials[which](ctx) })

	sc.Step(`^the HTTP status is (\d+|a 4xx)$`, st.statusIs)
	sc.Step(`^the "([^"]*)" header begins with "([^"]*)"$`, st.headerBegins)
	sc.Step(`^the "([^"]*)" header is a Bearer challenge(?: whose resource_metadata is "([^"]*)"| with error "([^"]*)", a scope and a resource_metadata)?$`, st.bearerChallenge)
	sc.Step(`^the Bearer challenge names each RFC 6750 attribute at most once(, in the characters RFC 6750 allows)?$`, st.challengeAttributes)
	sc.Step(`^the body is a JSON object whose "([^"]*)" is "([^"]*)"$`, st.bodyField)
	sc.Step(`^the reply is remembered as "([^"]*)"$`, st.remember)
	sc.Step(`^the reply is the same as "([^"]*)" in status, challenge and body$`, st.sameAs)

	st.registerPremise(sc)
}

// noContext adapts a step function that needs no context to a table of
// functions that may.
func noContext(fn func() error) func(context.Context) error {
	return func(context.Context) error { return fn() }
}

// oneOf builds a step pattern whose parameter is one of the keys of a
// table, so that a step names one entry exactly and a feature line that
// names none matches no step (godog's Strict run fails it as undefined).
func oneOf[V any](prefix string, table map[string]V, suffix string) string {
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, regexp.QuoteMeta(k))
	}
	slices.Sort(keys)
	return prefix + "(" + strings.Join(keys, "|") + ")" + suffix
}

func (st *State) anonymous() error { st.auth, st.byAllowlist = "", false; return nil }

// statusIs judges the last reply's status: a number, or "a 4xx".
func (st *State) statusIs(want string) error {
	h, err := st.needLast()
	if err != nil {
		return err
	}
	if want == "a 4xx" {
		if h.status < 400 || h.status > 499 {
			return st.depart("HTTP status", "a 4xx status", h.describe(), h.lastExchange())
		}
		return nil
	}
	n, _ := strconv.Atoi(want)
	if h.status != n {
		return st.depart("HTTP status", n, h.describe(), h.lastExchange())
	}
	return nil
}

func (st *State) headerBegins(header, prefix string) error {
	h, err := st.needLast()
	if err != nil {
		return err
	}
	got := h.header.Get(header)
	if !strings.HasPrefix(strings.ToLower(got), strings.ToLower(prefix)) {
		return st.depart(header+" header", fmt.Sprintf("beginning with %q", prefix), fmt.Sprintf("%q", got), h.lastExchange())
	}
	return nil
}

// bearerChallenge judges a challenge header. Without more, it is the Bearer
// scheme's own rule: "All challenges for this token type MUST use the
// auth-scheme value Bearer. This scheme MUST be followed by one or more
// auth-param values" (OAuth 2.1 section 5.3.1, RFC 6750 section 3). With a
// resource_metadata, the challenge names that URL (source 7.2); with an
// error, it is a scope challenge carrying that error code, a scope and a
// resource_metadata (RFC 6750 section 3.1, MCP authorization 10.1).
func (st *State) bearerChallenge(header, resourceMetadata, wantErr string) error {
	h, err := st.needLast()
	if err != nil {
		return err
	}
	values := h.header.Values(header)
	if resourceMetadata != "" {
		want, err := st.expand(resourceMetadata)
		if err != nil {
			return err
		}
		if len(values) == 0 {
			return st.depart(header+" header", fmt.Sprintf("Bearer resource_metadata=%q", want), "no such header", h.lastExchange())
		}
		if wire.ChallengeParam(values, "Bearer", "resource_metadata") != want {
			return st.depart(header+" header", fmt.Sprintf("a Bearer challenge with resource_metadata=%q", want), strings.Join(values, ", "), h.lastExchange())
		}
		return nil
	}
	c := bearerIn(values)
	if c == nil || len(c.Params) == 0 {
		got := strings.Join(values, ", ")
		if got == "" {
			got = "no such header"
		}
		return st.depart(header+" header (OAuth 2.1 5.3.1, RFC 6750 3)", "a Bearer challenge with at least one auth-param", got, h.lastExchange())
	}
	if wantErr == "" {
		return nil
	}
	var missing []string
	if c.Params["error"] != wantErr {
		missing = append(missing, fmt.Sprintf("error=%q", wantErr))
	}
	for _, p := range []string{"scope", "resource_metadata"} {
		if c.Params[p] == "" {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return st.depart(header+" header (RFC 6750 3.1)", "a Bearer challenge with "+strings.Join(missing, ", "), strings.Join(values, ", "), h.lastExchange())
	}
	return nil
}

// onceOnly are the attributes RFC 6750 section 3 (and OAuth 2.1 5.3.1)
// allows once in a challenge: "The realm attribute MUST NOT appear more
// than once", the same of scope, and "The error, error_description, and
// error_uri attributes MUST NOT appear more than once". Other auth-params
// (resource_metadata) are another document's.
var onceOnly = []string{"realm", "scope", "error", "error_description", "error_uri"}

// challengeAttributes judges the last reply's Bearer challenge by RFC 6750
// section 3: each of its attributes at most once and, when charset is set,
// each value in the characters the section allows. A reply without a Bearer
// challenge to read leaves it not run: the rules on the challenge itself
// judge that.
func (st *State) challengeAttributes(charset string) error {
	h, err := st.needLast()
	if err != nil {
		return err
	}
	values := h.header.Values("WWW-Authenticate")
	c := bearerIn(values)
	if c == nil || len(c.Params) == 0 {
		return st.skip(fmt.Sprintf("the reply (%s) carries no Bearer challenge with auth-params to read; the rules on the challenge itself judge that", h.describe()))
	}
	var twice []string
	for _, name := range c.Repeated {
		if slices.Contains(onceOnly, name) {
			twice = append(twice, name)
		}
	}
	if len(twice) > 0 {
		return st.depart("WWW-Authenticate header (RFC 6750 3, OAuth 2.1 5.3.1)", "realm, scope, error, error_description and error_uri each at most once",
			fmt.Sprintf("%s more than once: %s", strings.Join(twice, ", "), strings.Join(values, ", ")), h.lastExchange())
	}
	if charset == "" {
		return nil
	}
	if bad := challengeOutsideCharset(c.Params); len(bad) > 0 {
		return st.depart("WWW-Authenticate header (RFC 6750 3)", "scope, error, error_description and error_uri in the characters RFC 6750 3 allows",
			strings.Join(bad, "; ")+": "+strings.Join(values, ", "), h.lastExchange())
	}
	return nil
}

// challengeOutsideCharset names the attributes of a Bearer challenge whose values
// RFC 6750 section 3 forbids: scope tokens outside "%x21 / %x23-5B /
// %x5D-7E", error and error_description outside "%x20-21 / %x23-5B /
// %x5D-7E", an error_uri that is no URI-reference (RFC 3986 4.1).
func challengeOutsideCharset(params map[string]string) []string {
	allowed := func(s string, space bool) bool {
		for _, r := range s {
			if !(r == 0x21 || r >= 0x23 && r <= 0x5B || r >= 0x5D && r <= 0x7E || space && r == 0x20) {
				return false
			}
		}
		return true
	}
	var bad []string
	// The scope's tokens are separated by spaces (scope-token *( SP
	// scope-token )).
	if v, ok := params["scope"]; ok && !allowed(v, true) {
		bad = append(bad, fmt.Sprintf("scope %q", v))
	}
	for _, k := range []string{"error", "error_description"} {
		if v, ok := params[k]; ok && !allowed(v, true) {
			bad = append(bad, fmt.Sprintf("%s %q", k, v))
		}
	}
	if v, ok := params["error_uri"]; ok && !uriReference.MatchString(v) {
		bad = append(bad, fmt.Sprintf("error_uri %q", v))
	}
	return bad
}

// uriReference is the characters of an RFC 3986 URI-reference, percent
// signs only before two hex digits.
var uriReference = regexp.MustCompile(`^(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$`)

// bearerIn returns the first Bearer challenge of WWW-Authenticate values.
func bearerIn(values []string) *wire.Challenge {
	for _, v := range values {
		for _, c := range wire.ParseChallenges(v) {
			if strings.EqualFold(c.Scheme, "Bearer") {
				return &c
			}
		}
	}
	return nil
}

func (st *State) bodyField(field, want string) error {
	h, err := st.needLast()
	if err != nil {
		return err
	}
	var body map[string]any
	if err := json.Unmarshal(h.body, &body); err != nil {
		return st.depart("body", "a JSON object", wire.Quote(string(h.body)), h.lastExchange())
	}
	got, ok := body[field].(string)
	if !ok || got != want {
		return st.depart(fmt.Sprintf("body member %q", field), fmt.Sprintf("%q", want), fmt.Sprintf("%v", body[field]), h.lastExchange())
	}
	return nil
}

func (st *State) remember(name string) error {
	h, err := st.needLast()
	if err != nil {
		return err
	}
	st.remembered[name] = h
	return nil
}

// sameAs compares two replies as the source 7.2 says a 401 is the same for
// every cause: status, challenge and body. Of the challenge, source 7.2 fixes
// only the Bearer scheme and resource_metadata; RFC 6750 section 3.1 lets a
// host add error="invalid_token" when it rejects a token, so only what the
// source fixes is compared.
func (st *State) sameAs(name string) error {
	b, err := st.needLast()
	if err != nil {
		return err
	}
	a, ok := st.remembered[name]
	if !ok {
		return fmt.Errorf("no reply remembered as %q", name)
	}
	switch {
	case a.status != b.status:
		return st.depart("status compared with "+name, a.status, b.status, a.lastExchange(), b.lastExchange())
	case resourceMetadata(a.header) != resourceMetadata(b.header):
		return st.depart("challenge compared with "+name, fmt.Sprintf("a Bearer challenge with resource_metadata=%q", resourceMetadata(a.header)), fmt.Sprintf("%q", b.header.Get("WWW-Authenticate")), a.lastExchange(), b.lastExchange())
	case !bytes.Equal(bytes.TrimSpace(a.body), bytes.TrimSpace(b.body)):
		return st.depart("body compared with "+name, wire.Quote(string(a.body)), wire.Quote(string(b.body)), a.lastExchange(), b.lastExchange())
	}
	return nil
}

// resourceMetadata returns the resource_metadata of a reply's Bearer
// challenge, or "" when it has none.
func resourceMetadata(h http.Header) string {
	return wire.ChallengeParam(h.Values("WWW-Authenticate"), "Bearer", "resource_metadata")
}

// queryTokenClient is an MCP client of the endpoint that puts the target's
// credential in the URI query as access_token, RFC 6750's query form, and
// in no Authorization header.
func (st *State) queryTokenClient() (*mcpclient.Client, error) {
	u, err := url.Parse(st.endpoint())
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("access_token", st.Target.Credential)
	u.RawQuery = q.Encode()
	return mcpclient.New(u.String(), st.Target.HTTP).Pin(st.MCP.Revision()), nil
}

func (st *State) withCredential() error {
	if st.Target.Credential == "" {
		return st.skip(st.Target.Lacks("credential"))
	}
	st.auth = "Bearer " + st.Target.Credential
	return nil
}

// withHeader presents an Authorization header with the value given; an empty
// value is a header sent empty, not an anonymous caller (source 7.2, "a
// header was sent but is malformed").
func (st *State) withHeader(value string) error {
	v, err := st.expand(value)
	st.auth = v
	if v == "" {
		st.auth = mcpclient.EmptyAuthorization
	}
	return err
}
