package steps

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("outsideCharset", func() {
	DescribeTable("names the Bearer challenge attributes whose values RFC 6750 3 forbids",
		func(params map[string]string, want []string) {
			Expect(challengeOutsideCharset(params)).To(Equal(want))
		},
		Entry("scope tokens, an error, a description with spaces, a URI",
			map[string]string{"scope": "mcp:tools files:write", "error": "invalid_token", "error_description": "The token expired", "error_uri": "https://h/e?x=1#y"}, []string(nil)),
		Entry("realm and resource_metadata are not judged",
			map[string]string{"realm": `a "quoted" \ realm`, "resource_metadata": "https://h/m é"}, []string(nil)),
		Entry("a double quote in a description", map[string]string{"error_description": `the "given" token`}, []string{`error_description "the \"given\" token"`}),
		Entry("a backslash in a scope", map[string]string{"scope": `a\b`}, []string{`scope "a\\b"`}),
		Entry("a letter outside ASCII in an error", map[string]string{"error": "invalid_tokén"}, []string{`error "invalid_tokén"`}),
		Entry("an error_uri with a space",
			map[string]string{"error_uri": "https://h/a b"}, []string{`error_uri "https://h/a b"`}),
		Entry("an error_uri with a stray percent",
			map[string]string{"error_uri": "https://h/100%"}, []string{`error_uri "https://h/100%"`}),
	)
})
