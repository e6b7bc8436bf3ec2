package steps

import (
	"encoding/base64"
	"errors"
	"net/http"

	"github.com/cucumber/godog"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/target"
)

var _ = Describe("carriesChallenge", func() {
	verifier, challenge := oauthclient.PKCE()
	hash, _ := base64.RawURLEncoding.DecodeString(challenge)
	DescribeTable("finds a code_challenge a parameter gives away",
		func(value, want string) {
			Expect(carriesChallenge(value, challenge, hash)).To(Equal(want))
		},
		Entry("verbatim", "abc."+challenge, "verbatim"),
		Entry("base64url-encoded inside a code", base64.RawURLEncoding.EncodeToString([]byte(`{"c":"`+challenge+`"}`)), "once base64-decoded"),
		Entry("its hash, base64-encoded between dots", "v1."+base64.StdEncoding.EncodeToString(append([]byte("k"), hash...))+".sig", "once base64-decoded"),
		Entry("the verifier alone", verifier, ""),
		Entry("a random code", "f3b1c9d2e4a5", ""),
	)
})

var _ = Describe("codeWithoutVerifierRefused", func() {
	judge := func(status int, body map[string]any) error {
		st := &authzState{State: &State{Suite: &Suite{Target: &target.Target{}, Notes: NewNotes()}, vars: map[string]string{}}}
		st.authz.as.token = &oauthclient.Reply{Status: status, Header: http.Header{}, JSON: body}
		return st.codeWithoutVerifierRefused(&authorizeAnswer{redirected: true, location: "http://127.0.0.1/cb?code=c"})
	}

	DescribeTable("passes a refusal of the code, whatever the shape of the error response",
		func(status int, body map[string]any) {
			Expect(judge(status, body)).To(Succeed())
		},
		Entry("400 invalid_grant", http.StatusBadRequest, map[string]any{"error": "invalid_grant"}),
		Entry("400 without a JSON body", http.StatusBadRequest, nil),
		Entry("401 invalid_request", http.StatusUnauthorized, map[string]any{"error": "invalid_request"}),
	)

	DescribeTable("departs from a code redeemed for a token, or an answer that is no refusal",
		func(status int, body map[string]any) {
			var d *outcome.Departure
			Expect(errors.As(judge(status, body), &d)).To(BeTrue())
		},
		Entry("a token", http.StatusOK, map[string]any{"access_token": "t", "token_type": "Bearer"}),
		Entry("500", http.StatusInternalServerError, nil),
	)

	It("leaves the scenario not run when the client itself is refused", func() {
		err := judge(http.StatusUnauthorized, map[string]any{"error": "invalid_client"})
		Expect(errors.Is(err, godog.ErrSkip)).To(BeTrue(), "%v", err)
	})
})
