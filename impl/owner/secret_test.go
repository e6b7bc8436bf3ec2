package owner_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/owner"
	"github.com/conform-mcp/conform/impl/owner/strength"
	"github.com/conform-mcp/conform/impl/store"
)

// strongSecret is random text of 256 bits, as openssl rand -hex 32 writes.
const strongSecret = "9f2c4e81b07d3a65c8e1f49a2b6d70e3541a8c9fd2e6b03718c4a5e9f0d2b7c6"

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
		path, err := owner.Prepare(st, dir, "", strength.Check)
		Expect(err).NotTo(HaveOccurred())
		Expect(path).To(Equal(filepath.Join(dir, owner.FileName)))
		info, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(info.Mode().Perm()).To(Equal(os.FileMode(0o600)))
		secret, err := owner.Read(dir, "", strength.Check)
		Expect(err).NotTo(HaveOccurred())
		Expect(secret).To(MatchRegexp(`^[0-9a-f]{64}$`), "256 random bits")
		Expect(strength.Bits(secret)).To(BeNumerically(">=", strength.MinBits))
		Expect(digest()).To(Equal(store.DigestOf(secret)))

		By("keeping it across restarts")
		_, err = owner.Prepare(st, dir, "", strength.Check)
		Expect(err).NotTo(HaveOccurred())
		again, err := owner.Read(dir, "", strength.Check)
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(Equal(secret))
	})

	It("takes a given secret instead, without writing a file", func() {
		given := strongSecret
		path, err := owner.Prepare(st, dir, given, strength.Check)
		Expect(err).NotTo(HaveOccurred())
		Expect(path).To(BeEmpty())
		Expect(filepath.Join(dir, owner.FileName)).NotTo(BeAnExistingFile())
		Expect(digest()).To(Equal(store.DigestOf(given)))
		Expect(owner.Read("", given, strength.Check)).To(Equal(given))
	})

	// Issue 26 item 3: guessing must be hopeless whatever its rate; these
	// were accepted before, the first found at guess 80,001.
	DescribeTable("refuses a secret with less than 128 bits of estimated strength",
		func(secret string) {
			_, err := owner.Prepare(st, dir, secret, strength.Check)
			Expect(err).To(MatchError(MatchRegexp(`the owner secret is too easy to guess: its estimated strength is \d+ bits, at least 128 are needed`)))
			_, err = owner.Read("", secret, strength.Check)
			Expect(err).To(MatchError(ContainSubstring("too easy to guess")))
		},
		Entry("a short one", "hunter2"),
		Entry("a repeated word and a sequence", "passwordpasswordpassword12345678"),
		Entry("a password with the usual substitutions", "Password123!x3"),
		Entry("a passphrase of common words", "correct horse battery staple 2024"),
		Entry("a repeated pattern", strings.Repeat("0123456789abcdef", 4)),
		Entry("text that is not UTF-8", strings.Repeat("\xff\xfe", 40)),
		Entry("a long one whose first 128 bytes are weak", strings.Repeat("a", 128)+strongSecret),
	)

	It("takes the secret it creates without a judge, and refuses any other", func() {
		path, err := owner.Prepare(st, dir, "", nil)
		Expect(err).NotTo(HaveOccurred())
		secret, err := owner.Read(dir, "", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(secret).To(MatchRegexp(`^[0-9a-f]{64}$`), "256 random bits")
		Expect(digest()).To(Equal(store.DigestOf(secret)))

		By("refusing the file it finds at the next start, which a person may have written")
		_, err = owner.Prepare(st, dir, "", nil)
		Expect(err).To(MatchError(ContainSubstring("no strength check")))
		Expect(path).To(BeAnExistingFile())

		By("refusing a given secret, to prepare or to act with")
		_, err = owner.Prepare(st, GinkgoT().TempDir(), strongSecret, nil)
		Expect(err).To(MatchError(ContainSubstring("no strength check")))
		_, err = owner.Read("", strongSecret, nil)
		Expect(err).To(MatchError(ContainSubstring("no strength check")))
	})

	It("refuses a secret file others may read", func() {
		path := filepath.Join(dir, owner.FileName)
		Expect(os.WriteFile(path, []byte(strongSecret), 0o644)).To(Succeed())
		Expect(os.Chmod(path, 0o644)).To(Succeed())
		_, err := owner.Prepare(st, dir, "", strength.Check)
		Expect(err).To(MatchError(ContainSubstring("chmod 600")))
		_, err = owner.Read(dir, "", strength.Check)
		Expect(err).To(MatchError(ContainSubstring("chmod 600")))
	})

	It("says clearly when there is no secret to act with", func() {
		_, err := owner.Read(dir, "", strength.Check)
		Expect(err).To(MatchError(ContainSubstring("no owner secret")))
		Expect(err).To(MatchError(ContainSubstring(owner.EnvVar)))
		_, err = owner.Read("", "", strength.Check)
		Expect(err).To(MatchError(ContainSubstring("--data")))
	})
})
