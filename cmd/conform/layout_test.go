package main_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// mostLines is the most lines a Go file of the harness or a command may
// have: past it, a file holds more than one concept.
const mostLines = 650

var _ = Describe("the layout of the harness and the commands", func() {
	It("keeps every non-test Go file under harness/ and cmd/ at most 650 lines", func() {
		var long []string
		for _, root := range []string{"../../harness", "../../cmd"} {
			err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
					return err
				}
				b, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				if n := bytes.Count(b, []byte("\n")); n > mostLines {
					long = append(long, path)
				}
				return nil
			})
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(long).To(BeEmpty())
	})
})
