package store_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/store"
)

// Issue 26 item 4: a registration writes at most 8 KB.
var _ = Describe("Registration journal", func() {
	var path string
	var s *store.Store

	BeforeEach(func() {
		path = filepath.Join(GinkgoT().TempDir(), "host.db")
		var err error
		s, err = store.Open(path)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = s.Close() })
	})

	size := func(name string) int64 {
		GinkgoHelper()
		fi, err := os.Stat(name)
		Expect(err).NotTo(HaveOccurred())
		return fi.Size()
	}
	client := func(id string) store.Client {
		return store.Client{ID: id, Name: "Test client", RedirectURIs: []string{"http://127.0.0.1/callback"},
			GrantTypes: []string{"authorization_code"}, CreatedAt: time.Unix(1e9, 0).UTC()}
	}
	find := func(id string) (store.Client, bool) {
		GinkgoHelper()
		var c store.Client
		var found bool
		Expect(s.View(func(tx *store.Tx) error {
			var err error
			c, found, err = tx.Client(id)
			return err
		})).To(Succeed())
		return c, found
	}
	lookup := func(id string) store.Client {
		GinkgoHelper()
		c, found := find(id)
		Expect(found).To(BeTrue(), id)
		return c
	}
	reopen := func() {
		GinkgoHelper()
		Expect(s.Close()).To(Succeed())
		var err error
		s, err = store.Open(path)
		Expect(err).NotTo(HaveOccurred())
	}

	It("keeps a registration with one line of journal, not a commit of the data file", func() {
		time.Sleep(10 * time.Millisecond) // a commit after this shows as a later modification time
		before, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Register(client("c1"))).To(Succeed())
		after, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(after.ModTime()).To(Equal(before.ModTime()), "the data file was written")
		Expect(size(path + ".registrations")).To(BeNumerically("<=", 8<<10))
		Expect(lookup("c1")).To(Equal(client("c1")))

		By("folding it into the data file when the store opens again, as after a crash")
		reopen()
		Expect(size(path + ".registrations")).To(BeZero())
		Expect(lookup("c1")).To(Equal(client("c1")))
	})

	It("lets a record in the data file win over the journal's copy", func() {
		Expect(s.Register(client("c1"))).To(Succeed())
		used := client("c1")
		used.Used = true
		Expect(s.Update(func(tx *store.Tx) error { return tx.PutClient(used) })).To(Succeed())
		Expect(lookup("c1")).To(Equal(used))
		reopen()
		Expect(lookup("c1")).To(Equal(used))
	})

	It("folds before deleting or listing, so a deleted registration stays deleted", func() {
		Expect(s.Register(client("c1"))).To(Succeed())
		Expect(s.Register(client("c2"))).To(Succeed())
		var listed []string
		Expect(s.View(func(tx *store.Tx) error {
			return tx.Clients(func(c store.Client) error { listed = append(listed, c.ID); return nil })
		})).To(Succeed())
		Expect(listed).To(ConsistOf("c1", "c2"))
		Expect(s.Update(func(tx *store.Tx) error { return tx.DeleteClient("c1") })).To(Succeed())
		Expect(size(path + ".registrations")).To(BeZero())
		reopen()
		_, found := find("c1")
		Expect(found).To(BeFalse())
		Expect(lookup("c2")).To(Equal(client("c2")))
	})

	It("folds the journal into the data file once it holds 256 registrations", func() {
		for i := range 256 {
			Expect(s.Register(client(fmt.Sprintf("c%03d", i)))).To(Succeed())
		}
		Expect(size(path + ".registrations")).To(BeZero())
		Expect(lookup("c255")).To(Equal(client("c255")))
	})

	It("keeps a registration made when the fold that follows it fails, and says the fold is deferred", func() {
		for i := range 255 {
			Expect(s.Register(client(fmt.Sprintf("c%03d", i)))).To(Succeed())
		}
		// A key longer than the data file takes: the 256th registration is
		// journalled, and the fold it sets off fails.
		long := strings.Repeat("x", 40000)
		err := s.Register(client(long))
		Expect(err).To(MatchError(store.ErrFoldDeferred))
		Expect(lookup(long)).To(Equal(client(long)), "the registration stands")
		Expect(lookup("c000")).To(Equal(client("c000")))
		Expect(size(path+".registrations")).NotTo(BeZero(), "the journal keeps what it could not fold")

		By("refusing, once the journal holds 1024 the data file has not taken, a registration before it is journalled")
		for i := 256; i < 1024; i++ {
			Expect(s.Register(client(fmt.Sprintf("c%04d", i)))).To(MatchError(store.ErrFoldDeferred))
		}
		held := size(path + ".registrations")
		err = s.Register(client("one-too-many"))
		Expect(err).To(HaveOccurred())
		Expect(err).NotTo(MatchError(store.ErrFoldDeferred))
		Expect(size(path+".registrations")).To(Equal(held), "nothing journalled")
		_, found := find("one-too-many")
		Expect(found).To(BeFalse())
	})

	It("keeps what follows a line a crash cut short", func() {
		Expect(s.Register(client("c1"))).To(Succeed())
		Expect(s.Close()).To(Succeed())
		f, err := os.OpenFile(path+".registrations", os.O_WRONLY|os.O_APPEND, 0)
		Expect(err).NotTo(HaveOccurred())
		_, err = f.WriteString(`{"id":"cut`)
		Expect(err).NotTo(HaveOccurred())
		Expect(f.Close()).To(Succeed())
		s, err = store.Open(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Register(client("c2"))).To(Succeed())
		reopen()
		Expect(lookup("c1")).To(Equal(client("c1")))
		Expect(lookup("c2")).To(Equal(client("c2")))
	})
})
