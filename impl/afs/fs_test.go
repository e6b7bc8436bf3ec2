package afs_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/afs"
)

// demoFS is the example profile's tree (PRODUCT 4).
func demoFS() *afs.FS {
	public, err := afs.NewMemory(map[string]string{"readme.md": "# Readme\nopen to the network\n", "guide/intro.md": "Intro"}, fixedNow)
	Expect(err).NotTo(HaveOccurred())
	baseTree, err := afs.NewMemory(map[string]string{"notes.txt": "closed notes"}, fixedNow)
	Expect(err).NotTo(HaveOccurred())
	disk, err := afs.NewDisk(GinkgoT().TempDir())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(disk.Close)
	about, err := afs.NewMemory(map[string]string{"about.md": "about"}, fixedNow)
	Expect(err).NotTo(HaveOccurred())
	fsys, err := afs.New([]afs.Mount{
		{Path: "/public", Provider: afs.ReadOnly(public)},
		{Path: "/base", Provider: baseTree},
		{Path: "/overlay", Provider: disk, Overlay: true},
		{Path: "/overlay/readonly", Provider: afs.ReadOnly(about), Overlay: true},
	}, []string{"/public"}, afs.Limits{})
	Expect(err).NotTo(HaveOccurred())
	return fsys
}

var _ = Describe("FS", func() {
	ctx := context.Background()
	var fsys *afs.FS

	BeforeEach(func() { fsys = demoFS() })

	Describe("gate 3: exact AFS_FORBIDDEN texts (source 7.4)", func() {
		It("refuses a write of a base path", func() {
			_, err := fsys.Write(ctx, "/base/notes.txt", []byte("x"), afs.Overwrite)
			Expect(err).To(MatchError("AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot write base paths; use a resolver overlay or internal code"))
		})
		It("refuses a read of a base path", func() {
			_, err := fsys.Read(ctx, "/base/notes.txt", 0, 0)
			Expect(err).To(MatchError("AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot read base paths; declare a networkRead rule or use an overlay"))
		})
		It("refuses a list of a base path", func() {
			_, err := fsys.List(ctx, "/base", afs.ListOptions{})
			Expect(err).To(MatchError("AFS_FORBIDDEN: Forbidden at /base: network clients cannot list base paths; declare a networkRead rule or use an overlay"))
		})
		It("refuses a stat of a base path", func() {
			_, err := fsys.Stat(ctx, "/base/notes.txt")
			Expect(err).To(MatchError("AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot stat base paths; declare a networkRead rule or use an overlay"))
		})
		It("uses the reference texts for the operations the source does not name", func() {
			Expect(fsys.Delete(ctx, "/base/notes.txt")).To(MatchError("AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot delete base paths; use a resolver overlay or internal code"))
			_, err := fsys.Exec(ctx, "/base/notes.txt", nil)
			Expect(err).To(MatchError("AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot exec base paths; use a resolver overlay or internal code"))
			_, err = fsys.Search(ctx, "/base", "x", 0)
			Expect(err).To(MatchError("AFS_FORBIDDEN: Forbidden at /base: network clients cannot search base paths; declare a networkRead rule or use an overlay"))
			_, err = fsys.Explain(ctx, "/base")
			Expect(err).To(MatchError("AFS_FORBIDDEN: Forbidden at /base: network clients cannot explain base paths; declare a networkRead rule or use an overlay"))
		})
		It("refuses a write of a path opened only for reading", func() {
			_, err := fsys.Write(ctx, "/public/readme.md", []byte("x"), afs.Overwrite)
			Expect(err).To(MatchError("AFS_FORBIDDEN: Forbidden at /public/readme.md: network clients cannot write base paths; use a resolver overlay or internal code"))
		})
		It("decides before existence: a missing closed path is forbidden, not missing", func() {
			_, err := fsys.Stat(ctx, "/base/no-such-file")
			Expect(afs.CodeOf(err)).To(Equal(afs.CodeForbidden))
			_, err = fsys.Stat(ctx, "/nowhere/at/all")
			Expect(afs.CodeOf(err)).To(Equal(afs.CodeForbidden))
		})
		It("judges the canonical path, whatever the spelling", func() {
			_, err := fsys.Read(ctx, "//base//notes.txt/", 0, 0)
			Expect(err).To(MatchError(ContainSubstring("AFS_FORBIDDEN: Forbidden at /base/notes.txt:")))
			_, err = fsys.Read(ctx, "/public/../base/notes.txt", 0, 0)
			Expect(afs.CodeOf(err)).To(Equal(afs.CodeInvalidPath))
			_, err = fsys.Read(ctx, "/public/%2e%2e/base/notes.txt", 0, 0)
			Expect(err).To(MatchError("AFS_NOT_FOUND: Path not found: /public/%2e%2e/base/notes.txt"))
		})
	})

	Describe("open paths", func() {
		It("answers AFS_NOT_FOUND for a missing opened path", func() {
			_, err := fsys.Read(ctx, "/public/no-such-file", 0, 0)
			Expect(err).To(MatchError("AFS_NOT_FOUND: Path not found: /public/no-such-file"))
		})
		It("names the missing path when a stat finds nothing", func() {
			_, err := fsys.Stat(ctx, "/public/no-such-file")
			Expect(err).To(MatchError("AFS_NOT_FOUND: Path not found: /public/no-such-file"))
		})
		It("reads an opened file", func() {
			c, err := fsys.Read(ctx, "/public/readme.md", 0, 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(c.Data)).To(HavePrefix("# Readme"))
			Expect(c.Kind).To(Equal(afs.KindFile))
			Expect(c.More).To(BeFalse())
		})
		It("refuses to read a directory", func() {
			_, err := fsys.Read(ctx, "/public/guide", 0, 0)
			Expect(err).To(MatchError("AFS_IS_DIRECTORY: Is a directory at /public/guide: read needs a file"))
		})
		It("stats with capabilities and the operations gate 3 opens", func() {
			st, err := fsys.Stat(ctx, "/public/readme.md")
			Expect(err).NotTo(HaveOccurred())
			Expect(st.Capabilities).To(Equal([]afs.Operation{afs.OpList, afs.OpRead, afs.OpStat, afs.OpSearch, afs.OpExplain}))
			Expect(st.Network).To(Equal([]afs.Operation{afs.OpList, afs.OpRead, afs.OpStat, afs.OpSearch, afs.OpExplain}))
			Expect(st.Mount).To(Equal("/public"))
			Expect(st.Size).To(BeNumerically(">", 0))
		})
		It("lists with depth and pattern", func() {
			l, err := fsys.List(ctx, "/public", afs.ListOptions{Depth: 2})
			Expect(err).NotTo(HaveOccurred())
			paths := []string{}
			for _, e := range l.Entries {
				paths = append(paths, e.Path)
			}
			Expect(paths).To(Equal([]string{"/public/guide", "/public/guide/intro.md", "/public/readme.md"}))
			l, err = fsys.List(ctx, "/public", afs.ListOptions{Depth: 2, Pattern: "*.md", Limit: 1})
			Expect(err).NotTo(HaveOccurred())
			Expect(l.Entries).To(HaveLen(1))
			Expect(l.Truncated).To(BeTrue())
		})
		It("searches names and lines", func() {
			res, err := fsys.Search(ctx, "/public", "NETWORK", 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Matches).To(Equal([]afs.Match{{Path: "/public/readme.md", Line: 2, Text: "open to the network"}}))
		})
	})

	Describe("overlays", func() {
		It("writes, appends, creates and deletes through an overlay", func() {
			_, err := fsys.Write(ctx, "/overlay/scratch.txt", []byte("a"), afs.Overwrite)
			Expect(err).NotTo(HaveOccurred())
			_, err = fsys.Write(ctx, "/overlay/scratch.txt", []byte("b"), afs.Append)
			Expect(err).NotTo(HaveOccurred())
			c, err := fsys.Read(ctx, "/overlay/scratch.txt", 0, 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(c.Data)).To(Equal("ab"))
			_, err = fsys.Write(ctx, "/overlay/scratch.txt", []byte("c"), afs.Create)
			Expect(err).To(MatchError("AFS_EXISTS: Already exists at /overlay/scratch.txt: mode create never replaces a file"))
			Expect(fsys.Delete(ctx, "/overlay/scratch.txt")).To(Succeed())
			Expect(fsys.Delete(ctx, "/overlay/scratch.txt")).To(MatchError("AFS_NOT_FOUND: Path not found: /overlay/scratch.txt"))
		})
		It("opens a read-only overlay at gate 3 and refuses at gate 4", func() {
			_, err := fsys.Write(ctx, "/overlay/readonly/about.md", []byte("x"), afs.Overwrite)
			Expect(err).To(MatchError("AFS_NOT_SUPPORTED: Not supported at /overlay/readonly/about.md: the provider does not implement write"))
			st, err := fsys.Stat(ctx, "/overlay/readonly/about.md")
			Expect(err).NotTo(HaveOccurred())
			Expect(st.Capabilities).NotTo(ContainElement(afs.OpWrite))
			Expect(st.Network).To(ContainElement(afs.OpWrite))
		})
		It("refuses exec at gate 4: no provider implements it", func() {
			_, err := fsys.Exec(ctx, "/overlay/scratch.txt", nil)
			Expect(err).To(MatchError("AFS_NOT_SUPPORTED: Not supported at /overlay/scratch.txt: the provider does not implement exec"))
		})
		It("shows nested mounts in listings and protects mount points", func() {
			l, err := fsys.List(ctx, "/overlay", afs.ListOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(l.Entries).To(ContainElement(HaveField("Path", "/overlay/readonly")))
			Expect(fsys.Delete(ctx, "/overlay")).To(MatchError("AFS_MOUNT_POINT: Mount point at /overlay: delete cannot change the root of a mount"))
		})
	})

	It("explains which mount, provider and rule decide a path", func() {
		ex, err := fsys.Explain(ctx, "/overlay/readonly/about.md")
		Expect(err).NotTo(HaveOccurred())
		Expect(ex.Mount).To(Equal("/overlay/readonly"))
		Expect(ex.Rule).To(Equal("resolver overlay /overlay/readonly"))
		Expect(ex.Text).To(Equal("/overlay/readonly/about.md is served by the in-memory tree (read-only) (resolver overlay) at /overlay/readonly." +
			" Gate 3 (path policy): the resolver overlay /overlay/readonly opens list read stat search write delete exec explain to network clients." +
			" Gate 4 (provider): it implements list read stat search explain, so write delete exec answer AFS_NOT_SUPPORTED. The path exists (file)."))
	})
})
