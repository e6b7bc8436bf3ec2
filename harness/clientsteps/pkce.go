package clientsteps

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"

	"github.com/conform-mcp/conform/harness/scripted"
)

// The judgements of the client's PKCE (security 4, OAuth 2.1 4.1.1 and
// 7.5.2, RFC 7636).

func (st *scenario) pkce() error {
	auths, err := st.authorizations()
	if err != nil {
		return err
	}
	challenges := map[string]string{} // code → code_challenge
	for _, a := range auths {
		q := a.URL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
			return st.depart("PKCE", "code_challenge with code_challenge_method=S256", fmt.Sprintf("code_challenge_method=%q", q.Get("code_challenge_method")), a)
		}
		if loc, err := a.URL.Parse(a.RespHeader.Get("Location")); err == nil && loc.Query().Get("code") != "" {
			challenges[loc.Query().Get("code")] = q.Get("code_challenge")
		}
	}
	for _, t := range filter(st.log.Requests(), func(r scripted.Request) bool { return isCodeRedemption(r, st.first()) }) {
		want, ok := challenges[t.Form.Get("code")]
		if !ok {
			continue
		}
		sum := sha256.Sum256([]byte(t.Form.Get("code_verifier")))
		if base64.RawURLEncoding.EncodeToString(sum[:]) != want {
			return st.depart("PKCE", "a code_verifier whose S256 is the code_challenge sent", "another code_verifier", t)
		}
	}
	return nil
}

// freshChallenges judges that each authorization request carries a
// code_challenge of its own (OAuth 2.1 7.5.2: "transaction-specific"). A
// request without one is CLI-6's to judge.
func (st *scenario) freshChallenges() error {
	auths, err := st.authorizations()
	if err != nil {
		return err
	}
	if len(auths) < 2 {
		return st.unseen("the client sent one authorization request, and a code_challenge used again shows only in a second")
	}
	first := map[string]scripted.Request{}
	for _, a := range auths {
		c := a.URL.Query().Get("code_challenge")
		if c == "" {
			continue
		}
		if earlier, ok := first[c]; ok {
			return st.depart("transaction-specific code_challenge", "a new code_challenge in each authorization request", "the code_challenge of an earlier one again", earlier, a)
		}
		first[c] = a
	}
	return nil
}
