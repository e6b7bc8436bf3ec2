package main_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
)

var _ = Describe("toolhost --version (issue 16 item 1)", func() {
	It("prints the version and the Go release it was built with, never only (devel)", func() {
		s := exits(start(toolhostPath, "--version"), 0)
		Expect(s.Out).To(gbytes.Say(`^toolhost (v\d+\.\d+\.\d+\S*|devel\S*), .*built with go\d`))
	})
})
