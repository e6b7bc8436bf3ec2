package browser_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/internal/browser"
)

// fakeBinary writes an executable named name in a fresh directory.
func fakeBinary(name string) string {
	dir := GinkgoT().TempDir()
	path := filepath.Join(dir, name)
	Expect(os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755)).To(Succeed())
	return path
}

var _ = Describe("Chromium", func() {
	It("takes the binary CHROMIUM names before anything on PATH", func() {
		named := fakeBinary("my-chromium")
		GinkgoT().Setenv("PATH", filepath.Dir(fakeBinary("chromium")))
		GinkgoT().Setenv(browser.EnvVar, named)
		Expect(browser.Chromium()).To(Equal(named))
	})

	It("finds chromium on PATH, wherever it is installed", func() {
		onPath := fakeBinary("chromium")
		GinkgoT().Setenv("PATH", filepath.Dir(onPath))
		GinkgoT().Setenv(browser.EnvVar, "")
		Expect(browser.Chromium()).To(Equal(onPath))
	})

	It("says how to provide one when there is none", func() {
		GinkgoT().Setenv("PATH", GinkgoT().TempDir())
		GinkgoT().Setenv(browser.EnvVar, "")
		_, err := browser.Chromium()
		Expect(err).To(MatchError(ContainSubstring("set CHROMIUM to a Chromium binary")))
	})

	It("names a CHROMIUM that does not exist", func() {
		GinkgoT().Setenv(browser.EnvVar, "/no/such/chromium")
		_, err := browser.Chromium()
		Expect(err).To(MatchError(ContainSubstring("CHROMIUM=/no/such/chromium")))
	})
})
