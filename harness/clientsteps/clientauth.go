package clientsteps

import (
	"strings"

	"github.com/cucumber/godog"

	"github.com/conform-mcp/conform/harness/scripted"
)

// The judgement of how a confidential client authenticates at the token
// endpoint. Only a client the user registered beforehand with a secret
// (Config.Preregistered) is known to be confidential: the scripted
// authorization servers register every client that registers itself as a
// public one.
func (st *scenario) registerClientAuth(sc *godog.ScenarioContext) {
	sc.Step(`^every token request authenticated the client by exactly one method, its secret never in the request URI$`, st.judged(st.clientAuthenticated))
}

// clientAuthenticated: "Confidential clients MUST authenticate with the
// authorization server ... when making requests to the token endpoint"
// (OAuth 2.1 3.2.1, 4.1.3's and 4.3.1's likewise), "The client MUST NOT use
// more than one authentication method in each request" (2.4), and of
// client_secret_post, client_id and client_secret are "REQUIRED" and "MUST
// NOT be included in the request URI" (2.4.1).
func (st *scenario) clientAuthenticated() error {
	if st.cfg.Preregistered.Secret == "" {
		return st.skip("not applicable: the profile names no confidential client registered beforehand (client.client_id with client.client_secret_env)")
	}
	toks, err := st.sent(func(r scripted.Request) bool { return isToken(r, st.first()) }, "the client sent no token request")
	if err != nil {
		return err
	}
	for _, r := range toks {
		if expected, actual := authProblem(r); actual != "" {
			return st.depart("client authentication", expected, actual, r)
		}
	}
	return nil
}

// authProblem is how a confidential client's token request departs from
// authenticating by exactly one method: what was expected and what came,
// or "" for actual when it does not.
func authProblem(r scripted.Request) (expected, actual string) {
	if r.URL.Query().Has("client_secret") {
		return "the secret in the Authorization header or the request content", "client_secret in the request URI"
	}
	var methods []string
	if strings.HasPrefix(strings.ToLower(r.Header.Get("Authorization")), "basic ") {
		methods = append(methods, "client_secret_basic")
	}
	if r.Form.Has("client_secret") {
		methods = append(methods, "client_secret_post")
	}
	switch {
	case len(methods) == 0:
		return "the confidential client authenticated", "a token request without its secret"
	case len(methods) > 1:
		return "exactly one authentication method", "more than one: " + strings.Join(methods, " and ")
	case methods[0] == "client_secret_post" && r.Form.Get("client_id") == "":
		return "client_id beside client_secret in the request content", "client_secret without client_id"
	}
	return "", ""
}
