package report_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden from the current output")

// render writes the fixture run with one writer.
func render(w report.Writer) string {
	var b bytes.Buffer
	Expect(w.Write(&b, fixtureRun())).To(Succeed())
	return b.String()
}

var _ = Describe("golden files", func() {
	DescribeTable("each format renders the fixture run exactly as its golden file",
		func(name string, w report.Writer) {
			got := render(w)
			path := filepath.Join("testdata", "golden", name+".golden")
			if *update {
				Expect(os.WriteFile(path, []byte(got), 0o644)).To(Succeed())
			}
			want, err := os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred(), "run `go test ./harness/report -update` to create it")
			Expect(got).To(Equal(string(want)))
		},
		Entry("pretty", "pretty", report.Pretty{}),
		Entry("pretty in colour", "pretty-color", report.Pretty{Color: true}),
		Entry("progress", "progress", report.NewProgress(&bytes.Buffer{}, false)),
		Entry("junit", "junit", report.JUnit{}),
		Entry("cucumber", "cucumber", report.Cucumber{}),
		Entry("html", "html", report.HTML{}),
		Entry("json", "json", report.JSON{}),
	)
})
