package wire_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/wire"
)

var _ = Describe("ParseChallenges", func() {
	DescribeTable("reads every challenge of a WWW-Authenticate value",
		func(header string, want []wire.Challenge) {
			Expect(wire.ParseChallenges(header)).To(Equal(want))
		},
		Entry("one Bearer challenge",
			`Bearer resource_metadata="https://h/.well-known/oauth-protected-resource"`,
			[]wire.Challenge{{Scheme: "Bearer", Params: map[string]string{"resource_metadata": "https://h/.well-known/oauth-protected-resource"}}}),
		Entry("several challenges, tokens and quoted strings",
			`Basic realm="files", charset=UTF-8, Bearer realm=api, resource_metadata="https://h/m", error="invalid_token"`,
			[]wire.Challenge{
				{Scheme: "Basic", Params: map[string]string{"realm": "files", "charset": "UTF-8"}},
				{Scheme: "Bearer", Params: map[string]string{"realm": "api", "resource_metadata": "https://h/m", "error": "invalid_token"}},
			}),
		Entry("escapes inside a quoted string, and a comma in it",
			`Bearer realm="a \"quoted\" \\ name, still", resource_metadata="https://h/m"`,
			[]wire.Challenge{{Scheme: "Bearer", Params: map[string]string{"realm": `a "quoted" \ name, still`, "resource_metadata": "https://h/m"}}}),
		Entry("parameter names in any case, spaces around =",
			`Bearer Resource_Metadata = "https://h/m", REALM="x"`,
			[]wire.Challenge{{Scheme: "Bearer", Params: map[string]string{"resource_metadata": "https://h/m", "realm": "x"}}}),
		Entry("a scheme with no parameters, then another challenge",
			`Negotiate, Bearer resource_metadata="https://h/m"`,
			[]wire.Challenge{
				{Scheme: "Negotiate", Params: map[string]string{}},
				{Scheme: "Bearer", Params: map[string]string{"resource_metadata": "https://h/m"}},
			}),
		Entry("a name sent more than once: its last value, and the name among the repeated",
			`Bearer scope="a", Scope="b", realm=x, scope="c", realm=y`,
			[]wire.Challenge{{Scheme: "Bearer", Params: map[string]string{"scope": "c", "realm": "y"}, Repeated: []string{"scope", "realm"}}}),
		Entry("nothing", ``, []wire.Challenge(nil)),
	)

	It("finds the Bearer challenge after a token68 that ends in '='", func() {
		cs := wire.ParseChallenges(`Basic dXNlcg==, Bearer resource_metadata="https://h/m"`)
		Expect(cs).To(HaveLen(2))
		Expect(cs[0].Scheme).To(Equal("Basic"))
		Expect(cs[1]).To(Equal(wire.Challenge{Scheme: "Bearer", Params: map[string]string{"resource_metadata": "https://h/m"}}))
	})
})

var _ = Describe("ChallengeParam", func() {
	DescribeTable("finds resource_metadata in the Bearer challenge only",
		func(values []string, want string) {
			Expect(wire.ChallengeParam(values, "Bearer", "resource_metadata")).To(Equal(want))
		},
		Entry("quoted", []string{`Bearer resource_metadata="http://h/.well-known/oauth-protected-resource"`}, "http://h/.well-known/oauth-protected-resource"),
		Entry("a token, scheme in lower case", []string{`bearer realm=mcp, resource_metadata=http://h/m`}, "http://h/m"),
		Entry("after another challenge", []string{`Basic realm="x", resource_metadata="http://wrong"`, `Bearer error="invalid_token", resource_metadata="http://h/m"`}, "http://h/m"),
		Entry("in a later challenge of one value", []string{`Basic realm="x", Bearer resource_metadata="http://h/m"`}, "http://h/m"),
		Entry("only in another scheme", []string{`Basic resource_metadata="http://wrong"`}, ""),
		Entry("none", []string{}, ""),
	)
})
