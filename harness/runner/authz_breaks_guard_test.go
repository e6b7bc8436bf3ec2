package runner_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// breakConstants returns the names of the constants of type Break that a
// fake's package declares.
func breakConstants(dir string) []string {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		Expect(err).NotTo(HaveOccurred())
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				if t, ok := v.Type.(*ast.Ident); ok && t.Name == "Break" {
					for _, n := range v.Names {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}

var _ = Describe("the fake MCP server and authorization server", func() {
	It("has no departure that no test runs the pack against", func() {
		names := breakConstants("../fakeauthz")
		Expect(names).NotTo(BeEmpty())
		// The pack's break tests are here; a choice that proves another
		// part of the harness (the OAuth client) is tested there. The
		// fake's own specs show what a variant answers, not that the pack
		// judges it, so they do not count.
		all, err := filepath.Glob("../*/*_test.go")
		Expect(err).NotTo(HaveOccurred())
		var tests []string
		for _, t := range all {
			if filepath.Dir(t) != filepath.Join("..", "fakeauthz") {
				tests = append(tests, t)
			}
		}
		var text []byte
		for _, t := range tests {
			b, err := os.ReadFile(t)
			Expect(err).NotTo(HaveOccurred())
			text = append(text, b...)
		}
		var unused []string
		for _, n := range names {
			if !regexp.MustCompile(`fakeauthz\.` + n + `\b`).Match(text) {
				unused = append(unused, n)
			}
		}
		Expect(unused).To(BeEmpty(), "a Break no test runs the pack against proves nothing")
	})
})
