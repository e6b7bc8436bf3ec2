package owner_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/owner"
	"github.com/conform-mcp/conform/impl/store"
)

var _ = Describe("The owner secret", func() {
	var (
		dir string
		st  *store.Store
	)

	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		var err error
		st, err = store.Open(filepath.Join(dir, "host.db"))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(st.Close)
	})

	digest := func() store.Digest {
		var d store.Digest
		Expect(st.View(func(tx *store.Tx) error {
			var ok bool
			d, ok = tx.OwnerSecret()
			Expect(ok).To(BeTrue())
			return nil
		})).To(Succeed())
		return d
	}

	It("is created at first start in a file only its owner may read, and only its digest is stored", func() {
		path, err := owner.Prepare(st, dir, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(path).To(Equal(filepath.Join(dir, owner.FileName)))
		info, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(info.Mode().Perm()).To(Equal(os.FileMode(0o600)))
		secret, err := owner.Read(dir, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(len(secret)).To(BeNumerically(">=", owner.MinLength))
		Expect(digest()).To(Equal(store.DigestOf(secret)))

		By("keeping it across restarts")
		_, err = owner.Prepare(st, dir, "")
		Expect(err).NotTo(HaveOccurred())
		again, err := owner.Read(dir, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(Equal(secret))
	})

	It("takes a given secret instead, without writing a file", func() {
		given := strings.Repeat("s3cret-0123456789", 2)
		path, err := owner.Prepare(st, dir, given)
		Expect(err).NotTo(HaveOccurred())
		Expect(path).To(BeEmpty())
		Expect(filepath.Join(dir, owner.FileName)).NotTo(BeAnExistingFile())
		Expect(digest()).To(Equal(store.DigestOf(given)))
		Expect(owner.Read("", given)).To(Equal(given))
	})

	It("refuses a short given secret", func() {
		_, err := owner.Prepare(st, dir, "hunter2")
		Expect(err).To(MatchError(ContainSubstring("at least 32 characters")))
		_, err = owner.Read("", "hunter2")
		Expect(err).To(MatchError(ContainSubstring("at least 32 characters")))
	})

	It("refuses a long secret that repeats a few characters, which is no random text", func() {
		_, err := owner.Prepare(st, dir, strings.Repeat("passpass", 5))
		Expect(err).To(MatchError(ContainSubstring("repeats too few characters (3 different, at least 10 needed)")))
	})

	It("refuses a secret file others may read", func() {
		path := filepath.Join(dir, owner.FileName)
		Expect(os.WriteFile(path, []byte(strings.Repeat("s3cret-0123456789", 2)), 0o644)).To(Succeed())
		Expect(os.Chmod(path, 0o644)).To(Succeed())
		_, err := owner.Prepare(st, dir, "")
		Expect(err).To(MatchError(ContainSubstring("chmod 600")))
		_, err = owner.Read(dir, "")
		Expect(err).To(MatchError(ContainSubstring("chmod 600")))
	})

	It("says clearly when there is no secret to act with", func() {
		_, err := owner.Read(dir, "")
		Expect(err).To(MatchError(ContainSubstring("no owner secret")))
		Expect(err).To(MatchError(ContainSubstring(owner.EnvVar)))
		_, err = owner.Read("", "")
		Expect(err).To(MatchError(ContainSubstring("--data")))
	})
})
