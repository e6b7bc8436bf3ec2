package main_test

import (
	"os/exec"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"
)

// stampFlag is the linker flag make build and make install stamp the
// version with, up to the version itself.
const stampFlag = "-X github.com/conform-mcp/conform/internal/buildinfo.stamped="

var _ = Describe("conform --version (issue 16 item 1)", func() {
	It("prints the version and the Go release it was built with, never only (devel)", func() {
		s := exits(conform(nil, "--version"), 0)
		Expect(s.Out).To(gbytes.Say(`^conform (v\d+\.\d+\.\d+\S*|devel\S*), .*built with go\d`))
	})

	It("prints the version make stamped, and says devel when nothing stamped one (issue 24 item 10)", func() {
		stamped, err := gexec.Build("github.com/conform-mcp/conform/cmd/conform", "-ldflags", stampFlag+"v9.9.9-stamped")
		Expect(err).NotTo(HaveOccurred())
		out, err := exec.Command(stamped, "--version").Output()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).To(MatchRegexp(`^conform v9\.9\.9-stamped, .*built with go\d`))

		bare, err := gexec.Build("github.com/conform-mcp/conform/cmd/conform", "-buildvcs=false")
		Expect(err).NotTo(HaveOccurred())
		out, err = exec.Command(bare, "--version").Output()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).To(MatchRegexp(`^conform devel, built with go\d`))
	})
})
