package main_test

import (
	"os/exec"

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
		Expect(string(out)).To(ContainSubstring("install ./cmd/conform ./cmd/toolhost"))
	})
})
