package diagnose

import (
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// ginkgo is not dot-imported here: its Report would clash with this package's.
var _ = ginkgo.Describe("reading what the source does not shape", func() {
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
})
