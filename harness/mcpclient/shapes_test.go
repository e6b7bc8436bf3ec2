package mcpclient_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/mcpclient"
)

// The source shows neither afs_list's nor afs_stat's output shape, so the
// searches must find what it does name in any shape.
var _ = Describe("reading results whose shape the source does not show", func() {
	DescribeTable("Names finds a child in a listing of any shape",
		func(tr mcpclient.ToolResult, want bool) {
			Expect(tr.Names("readme.md")).To(Equal(want))
		},
		Entry("structured paths", mcpclient.ToolResult{Structured: []byte(`{"items":[{"path":"/public/readme.md"}]}`)}, true),
		Entry("JSON text of names", mcpclient.ToolResult{Text: `["docs/","readme.md"]`}, true),
		Entry("plain text lines", mcpclient.ToolResult{Text: "docs/\nreadme.md (12 bytes)"}, true),
		Entry("a longer name only", mcpclient.ToolResult{Text: `["old-readme.md.bak"]`}, false),
		Entry("a substring in plain text", mcpclient.ToolResult{Text: "readme.mdx"}, false),
	)

	DescribeTable("Capabilities finds the list wherever it is",
		func(tr mcpclient.ToolResult, want []string, found bool) {
			caps, ok := tr.Capabilities()
			Expect(ok).To(Equal(found))
			Expect(caps).To(Equal(want))
		},
		Entry("at the top of structured content", mcpclient.ToolResult{Structured: []byte(`{"capabilities":["read","stat"]}`)}, []string{"read", "stat"}, true),
		Entry("nested in structured content", mcpclient.ToolResult{Structured: []byte(`{"provider":{"capabilities":["list"]}}`)}, []string{"list"}, true),
		Entry("in text read as JSON", mcpclient.ToolResult{Text: `[{"capabilities":["write"]}]`}, []string{"write"}, true),
		Entry("a list of other than strings", mcpclient.ToolResult{Text: `{"capabilities":[1,2]}`}, []string(nil), false),
		Entry("plain text", mcpclient.ToolResult{Text: "capabilities: read stat"}, []string(nil), false),
	)
})
