package afs_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/afs"
	"github.com/conform-mcp/conform/impl/budget"
)

// countingMemory counts the stats a listing makes.
type countingMemory struct {
	*afs.Memory
	stats atomic.Int64
}

func (c *countingMemory) Stat(ctx context.Context, name string) (afs.Info, error) {
	c.stats.Add(1)
	return c.Memory.Stat(ctx, name)
}

// openFS serves files at /open, opened by a networkRead rule, with limits.
func openFS(files map[string]string, limits afs.Limits) (*afs.FS, *countingMemory) {
	mem, err := afs.NewMemory(files, fixedNow)
	Expect(err).NotTo(HaveOccurred())
	c := &countingMemory{Memory: mem}
	fsys, err := afs.New([]afs.Mount{{Path: "/open", Provider: c}}, []string{"/open"}, limits)
	Expect(err).NotTo(HaveOccurred())
	return fsys, c
}

func paths(es []afs.Entry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.Path)
	}
	return out
}

var _ = Describe("bounded reads (issue 8 item 10)", func() {
	ctx := context.Background()

	It("returns at most the read limit and says where the rest starts", func() {
		fsys, _ := openFS(map[string]string{"big.txt": strings.Repeat("0123456789", 10)}, afs.Limits{ReadBytes: 32})
		c, err := fsys.Read(ctx, "/open/big.txt", 0, 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(c.Data)).To(Equal("01234567890123456789012345678901"))
		Expect(c.More).To(BeTrue())
		Expect(c.Size).To(BeEquivalentTo(100))

		c, err = fsys.Read(ctx, "/open/big.txt", 90, 1000)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(c.Data)).To(Equal("0123456789"))
		Expect(c.Offset).To(BeEquivalentTo(90))
		Expect(c.More).To(BeFalse())

		c, err = fsys.Read(ctx, "/open/big.txt", 5, 3)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(c.Data)).To(Equal("567"))
		Expect(c.More).To(BeTrue())

		c, err = fsys.Read(ctx, "/open/big.txt", 500, 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Data).To(BeEmpty())
		Expect(c.More).To(BeFalse())
	})

	It("never ends a chunk inside a UTF-8 sequence, so text read in parts stays text", func() {
		text := strings.Repeat("aé€😀", 20)
		fsys, _ := openFS(map[string]string{"u.txt": text}, afs.Limits{ReadBytes: 7})
		var got strings.Builder
		offset := int64(0)
		for {
			c, err := fsys.Read(ctx, "/open/u.txt", offset, 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(strings.ToValidUTF8(string(c.Data), "?")).To(Equal(string(c.Data)), "chunk at %d", offset)
			got.Write(c.Data)
			offset += int64(len(c.Data))
			if !c.More {
				break
			}
		}
		Expect(got.String()).To(Equal(text))
	})

	It("skips files over the search limit, counts them, and still matches their names", func() {
		fsys, _ := openFS(map[string]string{
			"small.txt":      "one needle here\nnone\nneedle again",
			"needle-big.txt": strings.Repeat("needle ", 100),
		}, afs.Limits{SearchFileBytes: 64})
		res, err := fsys.Search(ctx, "/open", "NEEDLE", 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Matches).To(Equal([]afs.Match{
			{Path: "/open/needle-big.txt", Text: "needle-big.txt"},
			{Path: "/open/small.txt", Line: 1, Text: "one needle here"},
			{Path: "/open/small.txt", Line: 3, Text: "needle again"},
		}))
		Expect(res.Skipped).To(Equal(1))
		Expect(res.FileLimit).To(BeEquivalentTo(64))
	})

	It("does not search binary content", func() {
		fsys, _ := openFS(map[string]string{"bin": "needle\xff\xfe"}, afs.Limits{})
		res, err := fsys.Search(ctx, "/open", "needle", 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Matches).To(BeEmpty())
	})
})

var _ = Describe("searches within a request's budget (issue 15 item 1)", func() {
	files := map[string]string{"a.txt": strings.Repeat("haystack\n", 1000), "b.txt": strings.Repeat("haystack\n", 1000)}
	limits := func(scan int64) budget.Limits {
		return budget.Limits{ReplyBytes: 1 << 20, ScanBytes: scan, Timeout: time.Minute}
	}

	It("charges the bytes it reads to the request", func() {
		fsys, _ := openFS(files, afs.Limits{})
		b := budget.New(limits(18_000), time.Now())
		_, err := fsys.Search(budget.NewContext(context.Background(), b), "/open", "needle", 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Scan(1)).NotTo(Succeed(), "both files, 18,000 bytes, were charged")
	})

	It("stops, and fails with the budget's error, once the request's scan budget is spent", func() {
		fsys, _ := openFS(files, afs.Limits{})
		b := budget.New(limits(10_000), time.Now())
		_, err := fsys.Search(budget.NewContext(context.Background(), b), "/open", "needle", 0)
		Expect(err).To(MatchError(ContainSubstring("the searches of this request would read more than 10000 bytes of files")))
		Expect(err).To(Equal(b.Err()))
	})

	It("stops once the request's deadline has passed", func() {
		fsys, _ := openFS(files, afs.Limits{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := fsys.Search(ctx, "/open/a.txt", "needle", 0)
		Expect(err).To(MatchError(context.Canceled))
	})
})

var _ = Describe("listings that cost what they return (issue 9 item 4)", func() {
	ctx := context.Background()

	wide := func(n int) map[string]string {
		files := map[string]string{}
		for i := range n {
			files[fmt.Sprintf("f%04d", i)] = "x"
		}
		return files
	}

	It("stats only the entries it returns, and one more to know it is truncated", func() {
		fsys, c := openFS(wide(1000), afs.Limits{})
		c.stats.Store(0)
		l, err := fsys.List(ctx, "/open", afs.ListOptions{Limit: 10})
		Expect(err).NotTo(HaveOccurred())
		Expect(paths(l.Entries)).To(HaveLen(10))
		Expect(l.Entries[0].Path).To(Equal("/open/f0000"))
		Expect(l.Truncated).To(BeTrue())
		Expect(l.NextCursor).To(Equal("/open/f0009"))
		Expect(c.stats.Load()).To(BeNumerically("<=", 12), "the listed directory, ten entries and one more")
	})

	It("filters names by pattern before it stats them", func() {
		fsys, c := openFS(wide(1000), afs.Limits{})
		c.stats.Store(0)
		l, err := fsys.List(ctx, "/open", afs.ListOptions{Pattern: "f09*"})
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Entries).To(HaveLen(100))
		Expect(c.stats.Load()).To(BeNumerically("<=", 101))
	})

	It("pages through a tree with the cursor, missing and repeating nothing", func() {
		files := map[string]string{"a/x": "1", "a/y/z": "2", "a-b": "3", "b": "4", "c/d/e/f": "5"}
		fsys, _ := openFS(files, afs.Limits{})
		whole, err := fsys.List(ctx, "/open", afs.ListOptions{Depth: 4})
		Expect(err).NotTo(HaveOccurred())
		Expect(paths(whole.Entries)).To(Equal([]string{
			"/open/a", "/open/a/x", "/open/a/y", "/open/a/y/z", "/open/a-b", "/open/b",
			"/open/c", "/open/c/d", "/open/c/d/e", "/open/c/d/e/f",
		}))
		for _, size := range []int{1, 2, 3, 4} {
			var got []string
			cursor := ""
			for pages := 0; ; pages++ {
				Expect(pages).To(BeNumerically("<", 20))
				l, err := fsys.List(ctx, "/open", afs.ListOptions{Depth: 4, Limit: size, Cursor: cursor})
				Expect(err).NotTo(HaveOccurred())
				got = append(got, paths(l.Entries)...)
				if !l.Truncated {
					Expect(l.NextCursor).To(BeEmpty())
					break
				}
				cursor = l.NextCursor
			}
			Expect(got).To(Equal(paths(whole.Entries)), "pages of %d", size)
		}
	})

	It("starts after a cursor whose entry is gone", func() {
		fsys, _ := openFS(map[string]string{"a": "1", "c": "2"}, afs.Limits{})
		l, err := fsys.List(ctx, "/open", afs.ListOptions{Cursor: "/open/b"})
		Expect(err).NotTo(HaveOccurred())
		Expect(paths(l.Entries)).To(Equal([]string{"/open/c"}))
	})
})
