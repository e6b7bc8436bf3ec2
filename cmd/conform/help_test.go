package main_test

import (
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/spec"
)

var _ = Describe("conform --help (issue 24 item 10)", func() {
	It("names every specification pack with its title", func() {
		s := exits(conform(nil, "--help"), 0)
		packs, err := spec.LoadAll()
		Expect(err).NotTo(HaveOccurred())
		Expect(len(packs)).To(BeNumerically(">=", 2))
		for _, p := range packs {
			Expect(stdout(s)).To(MatchRegexp(`(?m)^  %s( \(default\))?\s+%s$`, p.Pack, regexp.QuoteMeta(p.Title)))
		}
	})
})
