package afs_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/afs"
)

var _ = Describe("Policy (gate 3)", func() {
	var pol *afs.Policy

	BeforeEach(func() {
		var err error
		pol, err = afs.NewPolicy([]string{"/public", "/docs/*.md"}, []string{"/overlay", "/overlay/readonly"})
		Expect(err).NotTo(HaveOccurred())
	})

	readOnly := []afs.Operation{afs.OpList, afs.OpRead, afs.OpStat, afs.OpSearch, afs.OpExplain}

	DescribeTable("decisions",
		func(p string, open []afs.Operation, by string) {
			d := pol.Decide(p)
			Expect(d.Open.List()).To(Equal(open))
			Expect(d.By).To(Equal(by))
		},
		Entry("prefix rule opens the prefix itself", "/public", readOnly, "networkRead rule /public"),
		Entry("prefix rule opens beneath", "/public/a/b.md", readOnly, "networkRead rule /public"),
		Entry("prefix rule stops at segment boundary", "/publicity", []afs.Operation{}, ""),
		Entry("glob rule matches within a segment", "/docs/a.md", readOnly, "networkRead rule /docs/*.md"),
		Entry("glob rule does not cross segments", "/docs/x/a.md", []afs.Operation{}, ""),
		Entry("glob rule does not open the directory", "/docs", []afs.Operation{}, ""),
		Entry("base paths are closed", "/base/notes.txt", []afs.Operation{}, ""),
		Entry("root is closed", "/", []afs.Operation{}, ""),
		Entry("overlay opens every operation", "/overlay/scratch.txt", afs.Operations, "resolver overlay /overlay"),
		Entry("innermost overlay is named", "/overlay/readonly/about.md", afs.Operations, "resolver overlay /overlay/readonly"),
	)

	DescribeTable("invalid declarations",
		func(rules, overlays []string, want string) {
			_, err := afs.NewPolicy(rules, overlays)
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("relative rule", []string{"public"}, nil, "must be absolute"),
		Entry("non-canonical rule", []string{"/public/"}, nil, "not a canonical path"),
		Entry("bad glob", []string{"/public/[a"}, nil, "syntax error in pattern"),
		Entry("non-canonical overlay", nil, []string{"/overlay/../base"}, "not a canonical path"),
	)
})
