package afs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/afs"
)

var _ = Describe("Disk provider writes (issue 8 items 11 and 13)", func() {
	ctx := context.Background()
	var (
		d    *afs.Disk
		dir  string
		fsys *afs.FS
	)

	BeforeEach(func() {
		dir = filepath.Join(GinkgoT().TempDir(), "tree")
		var err error
		d, err = afs.NewDisk(dir)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(d.Close)
		fsys, err = afs.New([]afs.Mount{{Path: "/overlay", Provider: d, Overlay: true}}, nil, afs.Limits{})
		Expect(err).NotTo(HaveOccurred())
	})

	It("never replaces a symlink the operator placed, in any mode", func() {
		Expect(os.WriteFile(filepath.Join(dir, "target.txt"), []byte("kept"), 0o644)).To(Succeed())
		Expect(os.Symlink("target.txt", filepath.Join(dir, "link.txt"))).To(Succeed())
		for _, mode := range []afs.WriteMode{afs.Overwrite, afs.Append} {
			_, err := fsys.Write(ctx, "/overlay/link.txt", []byte("x"), mode)
			Expect(err).To(MatchError("AFS_NOT_REGULAR: Not a regular file at /overlay/link.txt: write never replaces a link or special file the host placed there"), string(mode))
		}
		_, err := fsys.Write(ctx, "/overlay/link.txt", []byte("x"), afs.Create)
		Expect(afs.CodeOf(err)).To(Equal(afs.CodeExists))
		fi, err := os.Lstat(filepath.Join(dir, "link.txt"))
		Expect(err).NotTo(HaveOccurred())
		Expect(fi.Mode() & os.ModeSymlink).NotTo(BeZero())
		Expect(os.ReadFile(filepath.Join(dir, "target.txt"))).To(Equal([]byte("kept")))
	})

	It("never deletes a symlink or named pipe the operator placed, nor what the link leads to", func() {
		Expect(os.WriteFile(filepath.Join(dir, "target.txt"), []byte("kept"), 0o644)).To(Succeed())
		Expect(os.Symlink("target.txt", filepath.Join(dir, "link.txt"))).To(Succeed())
		Expect(os.Symlink("nowhere.txt", filepath.Join(dir, "dangling.txt"))).To(Succeed())
		Expect(syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644)).To(Succeed())
		Expect(fsys.Delete(ctx, "/overlay/link.txt")).To(MatchError(
			"AFS_NOT_REGULAR: Not a regular file at /overlay/link.txt: delete never removes a link or special file the host placed there"))
		for _, name := range []string{"dangling.txt", "pipe"} {
			Expect(afs.CodeOf(fsys.Delete(ctx, "/overlay/"+name))).To(Equal(afs.CodeNotRegular), name)
			_, err := os.Lstat(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred(), name)
		}
		fi, err := os.Lstat(filepath.Join(dir, "link.txt"))
		Expect(err).NotTo(HaveOccurred())
		Expect(fi.Mode() & os.ModeSymlink).NotTo(BeZero())
		Expect(os.ReadFile(filepath.Join(dir, "target.txt"))).To(Equal([]byte("kept")))
		Expect(fsys.Delete(ctx, "/overlay/target.txt")).To(Succeed())
	})

	It("never replaces or blocks on a named pipe", func() {
		Expect(syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644)).To(Succeed())
		_, err := fsys.Write(ctx, "/overlay/pipe", []byte("x"), afs.Overwrite)
		Expect(afs.CodeOf(err)).To(Equal(afs.CodeNotRegular))
		_, err = fsys.Write(ctx, "/overlay/pipe", []byte("x"), afs.Append)
		Expect(afs.CodeOf(err)).To(Equal(afs.CodeNotRegular))
		_, err = fsys.Read(ctx, "/overlay/pipe", 0, 0)
		Expect(afs.CodeOf(err)).To(Equal(afs.CodeNotFound))
		fi, err := os.Lstat(filepath.Join(dir, "pipe"))
		Expect(err).NotTo(HaveOccurred())
		Expect(fi.Mode() & os.ModeNamedPipe).NotTo(BeZero())
	})

	It("fails create on an existing file with AFS_EXISTS and leaves it alone", func() {
		_, err := fsys.Write(ctx, "/overlay/a.txt", []byte("first"), afs.Create)
		Expect(err).NotTo(HaveOccurred())
		_, err = fsys.Write(ctx, "/overlay/a.txt", []byte("second"), afs.Create)
		Expect(err).To(MatchError("AFS_EXISTS: Already exists at /overlay/a.txt: mode create never replaces a file"))
		Expect(os.ReadFile(filepath.Join(dir, "a.txt"))).To(Equal([]byte("first")))
		entries, err := os.ReadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).To(HaveLen(1), "no temporary file is left")
	})

	It("appends in place, without rewriting the file", func() {
		_, err := fsys.Write(ctx, "/overlay/log.txt", []byte("one\n"), afs.Append)
		Expect(err).NotTo(HaveOccurred())
		before, err := os.Stat(filepath.Join(dir, "log.txt"))
		Expect(err).NotTo(HaveOccurred())
		e, err := fsys.Write(ctx, "/overlay/log.txt", []byte("two\n"), afs.Append)
		Expect(err).NotTo(HaveOccurred())
		Expect(e.Size).To(BeEquivalentTo(8))
		after, err := os.Stat(filepath.Join(dir, "log.txt"))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.SameFile(before, after)).To(BeTrue(), "the same inode: appended, not replaced")
		Expect(os.ReadFile(filepath.Join(dir, "log.txt"))).To(Equal([]byte("one\ntwo\n")))
	})

	It("keeps nothing of an append that fails part way", func() {
		_, err := fsys.Write(ctx, "/overlay/log.txt", []byte("one\n"), afs.Append)
		Expect(err).NotTo(HaveOccurred())
		// A file size limit of 8 bytes lets the kernel take 4 of the 16
		// bytes and refuse the rest (EFBIG), as a disk that fills up would.
		var limit syscall.Rlimit
		Expect(syscall.Getrlimit(syscall.RLIMIT_FSIZE, &limit)).To(Succeed())
		small := limit
		small.Cur = 8
		Expect(syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small)).To(Succeed())
		_, err = fsys.Write(ctx, "/overlay/log.txt", []byte("0123456789abcdef"), afs.Append)
		Expect(syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limit)).To(Succeed())
		Expect(err).To(HaveOccurred())
		Expect(os.ReadFile(filepath.Join(dir, "log.txt"))).To(Equal([]byte("one\n")))
	})

	It("creates files and directories through the umask, and an overwrite keeps the mode", func() {
		old := syscall.Umask(0o027)
		DeferCleanup(func() { syscall.Umask(old) })
		_, err := fsys.Write(ctx, "/overlay/sub/new.txt", []byte("x"), afs.Overwrite)
		Expect(err).NotTo(HaveOccurred())
		fi, err := os.Stat(filepath.Join(dir, "sub", "new.txt"))
		Expect(err).NotTo(HaveOccurred())
		Expect(fi.Mode().Perm()).To(Equal(os.FileMode(0o640)))
		fi, err = os.Stat(filepath.Join(dir, "sub"))
		Expect(err).NotTo(HaveOccurred())
		Expect(fi.Mode().Perm()).To(Equal(os.FileMode(0o750)))

		Expect(os.Chmod(filepath.Join(dir, "sub", "new.txt"), 0o600)).To(Succeed())
		_, err = fsys.Write(ctx, "/overlay/sub/new.txt", []byte("y"), afs.Overwrite)
		Expect(err).NotTo(HaveOccurred())
		fi, err = os.Stat(filepath.Join(dir, "sub", "new.txt"))
		Expect(err).NotTo(HaveOccurred())
		Expect(fi.Mode().Perm()).To(Equal(os.FileMode(0o600)))
	})

	It("lists a large directory again once it changes, cached or not", func() {
		for i := range 300 {
			Expect(os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", i)), nil, 0o644)).To(Succeed())
		}
		old := time.Now().Add(-time.Hour)
		Expect(os.Chtimes(dir, old, old)).To(Succeed())
		first, err := fsys.List(ctx, "/overlay", afs.ListOptions{Limit: 1})
		Expect(err).NotTo(HaveOccurred())
		Expect(paths(first.Entries)).To(Equal([]string{"/overlay/f000"}))
		Expect(os.WriteFile(filepath.Join(dir, "a-new"), nil, 0o644)).To(Succeed())
		again, err := fsys.List(ctx, "/overlay", afs.ListOptions{Limit: 1})
		Expect(err).NotTo(HaveOccurred())
		Expect(paths(again.Entries)).To(Equal([]string{"/overlay/a-new"}))
		Expect(os.Remove(filepath.Join(dir, "a-new"))).To(Succeed())
		Expect(fsys.Delete(ctx, "/overlay/f000")).To(Succeed())
		again, err = fsys.List(ctx, "/overlay", afs.ListOptions{Limit: 1})
		Expect(err).NotTo(HaveOccurred())
		Expect(paths(again.Entries)).To(Equal([]string{"/overlay/f001"}))
	})
})

var _ = Describe("Disk provider after a crash (issue 26 item 7)", func() {
	It("removes the temporary files of unfinished writes at start-up, and nothing else", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "tree")
		Expect(os.MkdirAll(filepath.Join(dir, "sub", ".afs-write-ABCDEFGHIJKLMNOPQRSTUVWXYZ"), 0o755)).To(Succeed())
		leftovers := []string{".afs-write-ABCDEFGHIJKLMNOPQRSTUVWXYZ", "sub/.afs-write-234567ABCDEFGHIJKLMNOPQRST"}
		kept := []string{"a.txt", ".afs-write-short", ".afs-write-abcdefghijklmnopqrstuvwxyz", "sub/.afs-write-ABCDEFGHIJKLMNOPQRSTUVWXYZ1", "sub/b.txt"}
		for _, name := range append(leftovers, kept...) {
			Expect(os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644)).To(Succeed())
		}
		link := ".afs-write-QRSTUVWXYZ234567ABCDEFGHIJ"
		Expect(os.Symlink("a.txt", filepath.Join(dir, link))).To(Succeed())

		d, err := afs.NewDisk(dir)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(d.Close)
		Expect(d.RemoveUnfinished()).To(Equal(2))
		for _, name := range leftovers {
			_, err := os.Lstat(filepath.Join(dir, name))
			Expect(err).To(MatchError(os.ErrNotExist), name)
		}
		for _, name := range append(kept, link, "sub/.afs-write-ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			_, err := os.Lstat(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred(), name)
		}
	})
})

var _ = Describe("Disk provider quotas (issue 26 item 5)", func() {
	ctx := context.Background()
	var (
		d    *afs.Disk
		dir  string
		fsys *afs.FS
	)

	BeforeEach(func() {
		dir = filepath.Join(GinkgoT().TempDir(), "tree")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "there.txt"), make([]byte, 40), 0o644)).To(Succeed())
		var err error
		d, err = afs.NewDisk(dir)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(d.Close)
		fsys, err = afs.New([]afs.Mount{{Path: "/overlay", Provider: d, Overlay: true}}, nil, afs.Limits{})
		Expect(err).NotTo(HaveOccurred())
	})

	write := func(name string, n int, mode afs.WriteMode) error {
		_, err := fsys.Write(ctx, "/overlay/"+name, make([]byte, n), mode)
		return err
	}
	size := func(name string) int64 {
		GinkgoHelper()
		fi, err := os.Stat(filepath.Join(dir, name))
		Expect(err).NotTo(HaveOccurred())
		return fi.Size()
	}

	It("refuses a write that would make a file larger than the file quota, in every mode", func() {
		Expect(d.Limit(afs.Quota{FileBytes: 64})).To(Succeed())
		Expect(write("a.bin", 64, afs.Create)).To(Succeed())
		Expect(write("a.bin", 1, afs.Append)).To(MatchError(
			"AFS_QUOTA: Over quota at /overlay/a.bin: a file may hold at most 64 bytes, and this write would make it 65"))
		Expect(afs.CodeOf(write("a.bin", 65, afs.Overwrite))).To(Equal(afs.CodeQuota))
		Expect(afs.CodeOf(write("b.bin", 65, afs.Create))).To(Equal(afs.CodeQuota))
		Expect(size("a.bin")).To(Equal(int64(64)))
		Expect(filepath.Join(dir, "b.bin")).NotTo(BeAnExistingFile())
	})

	It("counts the files already there and what writes and deletes change against the total quota", func() {
		Expect(d.Limit(afs.Quota{TotalBytes: 100})).To(Succeed())
		Expect(write("a.bin", 60, afs.Create)).To(Succeed())
		Expect(write("b.bin", 1, afs.Create)).To(MatchError(
			"AFS_QUOTA: Over quota at /overlay/b.bin: the overlay may hold at most 100 bytes in all; 100 are in use and this write adds 1"))
		By("letting an overwrite that shrinks a file through, and counting what it freed")
		Expect(write("a.bin", 10, afs.Overwrite)).To(Succeed())
		Expect(write("b.bin", 50, afs.Create)).To(Succeed())
		Expect(afs.CodeOf(write("b.bin", 1, afs.Append))).To(Equal(afs.CodeQuota))
		Expect(fsys.Delete(ctx, "/overlay/there.txt")).To(Succeed())
		Expect(write("b.bin", 40, afs.Append)).To(Succeed())
		Expect(size("b.bin")).To(Equal(int64(90)))
	})

	It("keeps the disk's reserve free for the host's own records", func() {
		Expect(d.Limit(afs.Quota{FreeBytes: 1 << 62})).To(Succeed())
		err := write("a.bin", 1, afs.Create)
		Expect(err).To(MatchError(MatchRegexp(
			`^AFS_QUOTA: Over quota at /overlay/a\.bin: the host keeps 4611686018427387904 bytes of its disk free for its own records, and \d+ are free$`)))
		Expect(filepath.Join(dir, "a.bin")).NotTo(BeAnExistingFile())
	})
})
