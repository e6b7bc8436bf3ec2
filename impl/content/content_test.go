package content_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/afs"
	"github.com/conform-mcp/conform/impl/content"
)

var _ = Describe("Library", func() {
	var lib *content.Library

	BeforeEach(func() {
		docs, err := afs.NewMemory(map[string]string{"a.md": "Alpha line\nbeta", "guides/b.md": "Beta guide"}, time.Now)
		Expect(err).NotTo(HaveOccurred())
		secret, err := afs.NewMemory(map[string]string{"s.md": "secret"}, time.Now)
		Expect(err).NotTo(HaveOccurred())
		fsys, err := afs.New([]afs.Mount{{Path: "/docs", Provider: docs}, {Path: "/secret", Provider: secret}}, []string{"/docs"}, afs.Limits{})
		Expect(err).NotTo(HaveOccurred())
		lib = content.NewLibrary(fsys, []content.Collection{{Name: "docs", Path: "/docs"}, {Name: "secret", Path: "/secret"}})
	})

	It("lists items with ids relative to the collection", func(ctx SpecContext) {
		items, err := lib.List(ctx, "docs")
		Expect(err).NotTo(HaveOccurred())
		Expect(items).To(Equal([]content.Item{
			{Collection: "docs", ID: "a.md", Path: "/docs/a.md", Size: 15},
			{Collection: "docs", ID: "guides/b.md", Path: "/docs/guides/b.md", Size: 10},
		}))
	})

	It("searches case-insensitively", func(ctx SpecContext) {
		hits, err := lib.Search(ctx, "BETA", "docs")
		Expect(err).NotTo(HaveOccurred())
		Expect(hits).To(Equal([]content.Hit{
			{Collection: "docs", ID: "a.md", Path: "/docs/a.md", Line: 2, Text: "beta"},
			{Collection: "docs", ID: "guides/b.md", Path: "/docs/guides/b.md", Line: 1, Text: "Beta guide"},
		}))
	})

	It("gets an item and never leaves the collection", func(ctx SpecContext) {
		_, text, err := lib.Get(ctx, "docs", "guides/b.md")
		Expect(err).NotTo(HaveOccurred())
		Expect(text).To(Equal("Beta guide"))
		_, _, err = lib.Get(ctx, "docs", "../secret/s.md")
		Expect(err).To(MatchError("CONTENT_NOT_FOUND: Content not found: docs/../secret/s.md"))
		_, _, err = lib.Get(ctx, "docs", "guides")
		Expect(err).To(MatchError("CONTENT_NOT_FOUND: Content not found: docs/guides"))
	})

	It("still applies gate 3 to a collection whose path is closed (source 5.7)", func(ctx SpecContext) {
		_, _, err := lib.Get(ctx, "secret", "s.md")
		Expect(err).To(MatchError("AFS_FORBIDDEN: Forbidden at /secret/s.md: network clients cannot read base paths; declare a networkRead rule or use an overlay"))
	})

	It("names unknown collections", func(ctx SpecContext) {
		_, err := lib.List(ctx, "nope")
		Expect(err).To(MatchError("CONTENT_UNKNOWN_COLLECTION: Unknown collection: nope"))
		_, _, err = lib.Get(ctx, "", "a.md")
		Expect(err).To(MatchError("CONTENT_UNKNOWN_COLLECTION: Unknown collection: "))
	})
})
