package steps

import (
	"encoding/base64"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/oauthclient"
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
