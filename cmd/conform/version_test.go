package main_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
)

var _ = Describe("conform --version (issue 16 item 1)", func() {
	It("prints the module version and the Go release it was built with", func() {
		s := exits(conform(nil, "--version"), 0)
		Expect(s.Out).To(gbytes.Say(`^conform (\(devel\)|v\d+\.\d+\.\d+\S*), .*built with go\d`))
	})
})
