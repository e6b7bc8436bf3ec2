package main_test

import (
	"os/exec"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("conform's dependencies", func() {
	// The owner-secret strength estimator builds its dictionaries when its
	// package initialises, about 25 ms of every process that links it; the
	// in-process hosts create their own secrets and never judge one
	// (impl/owner/strength), so conform must not link it.
	It("leave out the owner secret's strength estimator", func() {
		out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		deps := strings.Fields(string(out))
		Expect(deps).To(ContainElement("github.com/conform-mcp/conform/impl/owner"), "the in-process hosts keep their owner secrets")
		Expect(deps).NotTo(ContainElement(HavePrefix("github.com/trustelem/zxcvbn")))
		Expect(deps).NotTo(ContainElement("github.com/conform-mcp/conform/impl/owner/strength"))
	})
})
