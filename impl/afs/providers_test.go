package afs_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/afs"
)

// readAll returns the whole content of name through the Reader interface.
func readAll(r afs.Reader, name string) (string, error) {
	f, err := r.Open(context.Background(), name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	return string(data), err
}

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func fixedNow() time.Time { return epoch }

var _ = Describe("Memory provider", func() {
	ctx := context.Background()
	var m *afs.Memory

	BeforeEach(func() {
		var err error
		m, err = afs.NewMemory(map[string]string{"readme.md": "hello", "docs/a.md": "alpha"}, fixedNow)
		Expect(err).NotTo(HaveOccurred())
	})

	It("has implicit directories", func() {
		Expect(m.Stat(ctx, "/docs")).To(Equal(afs.Info{Name: "docs", Kind: afs.KindDirectory, Modified: epoch}))
		Expect(m.Names(ctx, "/")).To(ConsistOf("docs", "readme.md"))
		Expect(m.Names(ctx, "/docs")).To(ConsistOf("a.md"))
		_, err := m.Names(ctx, "/readme.md")
		Expect(err).To(MatchError(afs.ErrNotExist))
	})

	It("writes in every mode", func() {
		_, err := m.Write(ctx, "/readme.md", []byte(" world"), afs.Append)
		Expect(err).NotTo(HaveOccurred())
		Expect(readAll(m, "/readme.md")).To(Equal("hello world"))
		_, err = m.Write(ctx, "/readme.md", []byte("x"), afs.Create)
		Expect(err).To(MatchError(afs.ErrExist))
		_, err = m.Write(ctx, "/docs", []byte("x"), afs.Overwrite)
		Expect(err).To(MatchError(afs.ErrIsDir))
	})

	It("deletes files and only empty directories", func() {
		Expect(m.Delete(ctx, "/docs")).To(MatchError(afs.ErrNotEmpty))
		Expect(m.Delete(ctx, "/docs/a.md")).To(Succeed())
		Expect(m.Delete(ctx, "/docs")).To(Succeed())
		Expect(m.Delete(ctx, "/docs")).To(MatchError(afs.ErrNotExist))
		Expect(m.Names(ctx, "/")).To(ConsistOf("readme.md"))
	})

	It("rejects file names that are not paths", func() {
		_, err := afs.NewMemory(map[string]string{"../x": "y"}, fixedNow)
		Expect(err).To(MatchError(ContainSubstring("AFS_INVALID_PATH")))
	})

	It("loses its changing operations when read-only", func() {
		ro := afs.ReadOnly(m)
		Expect(afs.Capabilities(ro).List()).To(Equal([]afs.Operation{afs.OpList, afs.OpRead, afs.OpStat, afs.OpSearch, afs.OpExplain}))
		Expect(afs.Capabilities(m).List()).To(Equal([]afs.Operation{afs.OpList, afs.OpRead, afs.OpStat, afs.OpSearch, afs.OpWrite, afs.OpDelete, afs.OpExplain}))
		Expect(ro.String()).To(Equal("in-memory tree (read-only)"))
	})
})

var _ = Describe("Disk provider", func() {
	ctx := context.Background()
	var (
		d       *afs.Disk
		dir     string
		outside string
	)

	BeforeEach(func() {
		parent := GinkgoT().TempDir()
		dir = filepath.Join(parent, "tree")
		outside = filepath.Join(parent, "secret.txt")
		Expect(os.WriteFile(outside, []byte("secret"), 0o644)).To(Succeed())
		var err error
		d, err = afs.NewDisk(dir)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(d.Close)
	})

	It("writes atomically, creating directories, and leaves no temporary file", func() {
		_, err := d.Write(ctx, "/a/b.txt", []byte("one"), afs.Overwrite)
		Expect(err).NotTo(HaveOccurred())
		_, err = d.Write(ctx, "/a/b.txt", []byte("two"), afs.Append)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.ReadFile(filepath.Join(dir, "a", "b.txt"))).To(Equal([]byte("onetwo")))
		entries, err := os.ReadDir(filepath.Join(dir, "a"))
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).To(HaveLen(1))
		_, err = d.Write(ctx, "/a/b.txt", []byte("x"), afs.Create)
		Expect(err).To(MatchError(afs.ErrExist))
	})

	It("cannot be escaped by an absolute symlink", func() {
		Expect(os.Symlink(outside, filepath.Join(dir, "abs"))).To(Succeed())
		_, err := d.Open(ctx, "/abs")
		Expect(err).To(MatchError(afs.ErrNotExist))
		_, err = d.Stat(ctx, "/abs")
		Expect(err).To(MatchError(afs.ErrNotExist))
	})

	It("cannot be escaped by a relative symlink that climbs out", func() {
		Expect(os.Symlink("../secret.txt", filepath.Join(dir, "up"))).To(Succeed())
		_, err := d.Open(ctx, "/up")
		Expect(err).To(MatchError(afs.ErrNotExist))
		_, err = d.Stat(ctx, "/up")
		Expect(err).To(MatchError(afs.ErrNotExist), "so the FS leaves it out of listings")
	})

	It("cannot be escaped by a directory symlink followed by a write", func() {
		Expect(os.Symlink(filepath.Dir(outside), filepath.Join(dir, "out"))).To(Succeed())
		_, err := d.Write(ctx, "/out/secret.txt", []byte("owned"), afs.Overwrite)
		Expect(err).To(HaveOccurred())
		Expect(os.ReadFile(outside)).To(Equal([]byte("secret")))
	})

	It("deletes files and only empty directories", func() {
		_, err := d.Write(ctx, "/a/b.txt", []byte("one"), afs.Overwrite)
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Delete(ctx, "/a")).To(MatchError(afs.ErrNotEmpty))
		Expect(d.Delete(ctx, "/a/b.txt")).To(Succeed())
		Expect(d.Delete(ctx, "/a")).To(Succeed())
		Expect(d.Delete(ctx, "/a")).To(MatchError(afs.ErrNotExist))
	})
})
