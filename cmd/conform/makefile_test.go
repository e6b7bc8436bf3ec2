package main_test

import (
	"os"
	"os/exec"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/spec"
)

var _ = Describe("make conformance", func() {
	It("runs every pack, as the README promises every scenario", func() {
		out, err := exec.Command("make", "-s", "-n", "-C", "../..", "conformance").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		for _, pack := range spec.Packs() {
			Expect(string(out)).To(ContainSubstring(pack), "pack %s", pack)
		}
		Expect(string(out)).To(ContainSubstring("--spec $pack"))
	})
})

var _ = Describe("make install", func() {
	It("installs both binaries from the clone, as the README says", func() {
		out, err := exec.Command("make", "-s", "-n", "-C", "../..", "install").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(MatchRegexp(`install (-ldflags '[^']*' )?\./cmd/conform \./cmd/toolhost`))
	})

	It("stamps both binaries with git describe of the clone (issue 24 item 10)", func() {
		described, err := exec.Command("git", "describe", "--always", "--dirty").Output()
		Expect(err).NotTo(HaveOccurred())
		for _, target := range []string{"install", "build"} {
			out, err := exec.Command("make", "-s", "-n", "-C", "../..", target).CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), string(out))
			Expect(string(out)).To(ContainSubstring("-ldflags '" + stampFlag + strings.TrimSpace(string(described)) + "'"))
		}
	})

	It("stamps nothing outside a git clone, and still installs", func() {
		cmd := exec.Command("make", "-s", "-n", "-C", "../..", "install")
		cmd.Env = append(os.Environ(), "GIT_DIR="+GinkgoT().TempDir())
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).NotTo(ContainSubstring("-ldflags"))
		Expect(string(out)).To(ContainSubstring("./cmd/conform ./cmd/toolhost"))
	})
})
