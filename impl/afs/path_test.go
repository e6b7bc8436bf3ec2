package afs_test

import (
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/afs"
)

var _ = Describe("Canonical", func() {
	DescribeTable("accepted spellings",
		func(in, want string) {
			Expect(afs.Canonical(in)).To(Equal(want))
		},
		Entry("root", "/", "/"),
		Entry("plain", "/public/readme.md", "/public/readme.md"),
		Entry("doubled slashes collapse", "//public//readme.md", "/public/readme.md"),
		Entry("trailing slash drops", "/public/", "/public"),
		Entry("only slashes", "///", "/"),
		Entry("percent-encoded dots stay literal", "/public/%2e%2e/base", "/public/%2e%2e/base"),
		Entry("dots inside a name are a name", "/public/..hidden", "/public/..hidden"),
		Entry("three dots are a name", "/public/...", "/public/..."),
	)

	DescribeTable("hostile spellings are AFS_INVALID_PATH",
		func(in, want string) {
			_, err := afs.Canonical(in)
			Expect(err).To(MatchError(want))
			Expect(afs.CodeOf(err)).To(Equal(afs.CodeInvalidPath))
		},
		Entry("dot-dot", "/public/../base/notes.txt", `AFS_INVALID_PATH: Invalid path: /public/../base/notes.txt: the path contains a ".." segment`),
		Entry("trailing dot-dot", "/public/..", `AFS_INVALID_PATH: Invalid path: /public/..: the path contains a ".." segment`),
		Entry("dot", "/public/./readme.md", `AFS_INVALID_PATH: Invalid path: /public/./readme.md: the path contains a "." segment`),
		Entry("NUL", "/public/readme.md\x00.txt", "AFS_INVALID_PATH: Invalid path: /public/readme.md\x00.txt: the path contains a NUL byte"),
		Entry("backslash", `/public\..\base`, `AFS_INVALID_PATH: Invalid path: /public\..\base: the path contains a backslash`),
		Entry("relative", "public/readme.md", "AFS_INVALID_PATH: Invalid path: public/readme.md: the path must be absolute (start with /)"),
		Entry("empty", "", "AFS_INVALID_PATH: Invalid path: : the path is empty"),
		Entry("invalid UTF-8", "/public/\xff", "AFS_INVALID_PATH: Invalid path: /public/\xff: the path is not valid UTF-8"),
		Entry("too long", "/"+strings.Repeat("a", afs.MaxPathLength), "AFS_INVALID_PATH: Invalid path: /"+strings.Repeat("a", afs.MaxPathLength)+": the path is longer than 4096 bytes"),
	)

	It("matches prefixes by whole segments", func() {
		Expect(afs.Within("/public/readme.md", "/public")).To(BeTrue())
		Expect(afs.Within("/public", "/public")).To(BeTrue())
		Expect(afs.Within("/publicity", "/public")).To(BeFalse())
		Expect(afs.Within("/anything", "/")).To(BeTrue())
	})
})

// FuzzCanonical checks that canonicalisation never panics, that its output
// is a fixed point, and that no accepted spelling can climb out of a tree.
func FuzzCanonical(f *testing.F) {
	for _, seed := range []string{"/", "/public/readme.md", "//a//b/", "/a/../b", "/a/./b", "/%2e%2e/x", "a/b", "/a\\b", "/a\x00b", "", "/\xff"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := afs.Canonical(in)
		if err != nil {
			if afs.CodeOf(err) != afs.CodeInvalidPath {
				t.Fatalf("Canonical(%q): error %v has no AFS_INVALID_PATH code", in, err)
			}
			return
		}
		again, err := afs.Canonical(out)
		if err != nil || again != out {
			t.Fatalf("Canonical(%q) = %q, not a fixed point (%q, %v)", in, out, again, err)
		}
		if !strings.HasPrefix(out, "/") || strings.Contains(out, "//") || (out != "/" && strings.HasSuffix(out, "/")) {
			t.Fatalf("Canonical(%q) = %q is not canonical", in, out)
		}
		if strings.ContainsAny(out, "\x00\\") {
			t.Fatalf("Canonical(%q) = %q keeps a NUL or backslash", in, out)
		}
		for _, seg := range strings.Split(out[1:], "/") {
			if seg == "." || seg == ".." {
				t.Fatalf("Canonical(%q) = %q keeps a dot segment", in, out)
			}
		}
		if strings.HasPrefix(in, "/public/") && !afs.Within(out, "/public") {
			t.Fatalf("Canonical(%q) = %q escapes /public", in, out)
		}
	})
}
