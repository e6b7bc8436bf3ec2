package diagnose

import (
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/mcpclient"
)

// ginkgo is not dot-imported here: its Report would clash with this package's.
var _ = ginkgo.Describe("reading what the source does not shape", func() {
	ginkgo.DescribeTable("challengeParam finds resource_metadata in the Bearer challenge only",
		func(values []string, want string) {
			Expect(challengeParam(values, "Bearer", "resource_metadata")).To(Equal(want))
		},
		ginkgo.Entry("quoted", []string{`Bearer resource_metadata="http://h/.well-known/oauth-protected-resource"`}, "http://h/.well-known/oauth-protected-resource"),
		ginkgo.Entry("a token, scheme in lower case", []string{`bearer realm=mcp, resource_metadata=http://h/m`}, "http://h/m"),
		ginkgo.Entry("escapes in a quoted string", []string{`Bearer realm="a \"b\"", resource_metadata="http://h/\m"`}, "http://h/m"),
		ginkgo.Entry("after another challenge", []string{`Basic realm="x", resource_metadata="http://wrong"`, `Bearer error="invalid_token", resource_metadata="http://h/m"`}, "http://h/m"),
		ginkgo.Entry("in a later challenge of one value", []string{`Basic realm="x", Bearer resource_metadata="http://h/m"`}, "http://h/m"),
		ginkgo.Entry("only in another scheme", []string{`Basic resource_metadata="http://wrong"`}, ""),
		ginkgo.Entry("none", []string{}, ""),
	)

	ginkgo.DescribeTable("operationOf maps a tool to its operation, saying when it guesses",
		func(tool, op string, sure bool) {
			gotOp, gotSure := operationOf(tool)
			Expect(gotOp).To(Equal(op))
			Expect(gotSure).To(Equal(sure))
		},
		ginkgo.Entry(nil, "afs_write", "write", true),
		ginkgo.Entry(nil, "afs_explain", "explain", true),
		ginkgo.Entry(nil, "afs_read_range", "read", false),
		ginkgo.Entry(nil, "search_content", "search", false),
		ginkgo.Entry(nil, "fetch", "fetch", false),
	)

	ginkgo.DescribeTable("names finds a child in a listing of any shape",
		func(tr mcpclient.ToolResult, want bool) {
			Expect(names(&tr, "readme.md")).To(Equal(want))
		},
		ginkgo.Entry("structured paths", mcpclient.ToolResult{Structured: []byte(`{"items":[{"path":"/public/readme.md"}]}`)}, true),
		ginkgo.Entry("JSON text of names", mcpclient.ToolResult{Text: `["docs/","readme.md"]`}, true),
		ginkgo.Entry("plain text lines", mcpclient.ToolResult{Text: "docs/\nreadme.md (12 bytes)"}, true),
		ginkgo.Entry("a longer name only", mcpclient.ToolResult{Text: `["old-readme.md.bak"]`}, false),
		ginkgo.Entry("a substring in plain text", mcpclient.ToolResult{Text: "readme.mdx"}, false),
	)

	ginkgo.It("finds no capabilities when the list holds other than strings", func() {
		_, ok := Capabilities(&mcpclient.ToolResult{Text: `{"capabilities":[1,2]}`})
		Expect(ok).To(BeFalse())
	})
})
