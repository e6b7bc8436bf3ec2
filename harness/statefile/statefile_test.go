package statefile_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/statefile"
)

var _ = Describe("a state file", func() {
	It("is written whole, readable by its owner alone, in a directory made for it, with no temporary file left", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "state")
		path := filepath.Join(dir, "clients.json")
		Expect(statefile.Write(path, []byte(`{"a":1}`))).To(Succeed())
		Expect(statefile.Write(path, []byte(`{"b":2}`))).To(Succeed())
		Expect(os.ReadFile(path)).To(Equal([]byte(`{"b":2}`)))
		info, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(info.Mode().Perm()).To(Equal(os.FileMode(0o600)))
		dirInfo, err := os.Stat(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(dirInfo.Mode().Perm()).To(Equal(os.FileMode(0o700)))
		Expect(os.ReadDir(dir)).To(HaveLen(1))
	})

	It("says which file it could not write", func() {
		blocker := filepath.Join(GinkgoT().TempDir(), "file")
		Expect(os.WriteFile(blocker, nil, 0o600)).To(Succeed())
		Expect(statefile.Write(filepath.Join(blocker, "clients.json"), nil)).To(MatchError(ContainSubstring(blocker)))
	})
})
