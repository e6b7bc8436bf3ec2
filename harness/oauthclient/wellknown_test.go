package oauthclient_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// servers are the directories of the fake servers, which serve the
// well-known documents rather than ask for them, and of the client half's
// scripted servers and judges, which watch a client ask for them. They spell
// the paths on their own, from the RFCs, so that a mistake in the client's
// spelling is not mirrored by the fakes the break suites run it against,
// nor by the judges of a client built on this package (fakeclient).
var servers = []string{"harness/fakehost", "harness/fakeauthz", "harness/scripted", "harness/clientsteps"}

var _ = Describe("the well-known URI suffixes", func() {
	It("are each written in one non-test Go file of harness/ and cmd/, outside the fake servers", func() {
		root, err := filepath.Abs("../..")
		Expect(err).NotTo(HaveOccurred())
		where := map[string][]string{}
		suffixes := []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"}
		for _, dir := range []string{"harness", "cmd"} {
			err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(root, path)
				rel = filepath.ToSlash(rel)
				for _, s := range servers {
					if d.IsDir() && rel == s {
						return filepath.SkipDir
					}
				}
				if d.IsDir() || !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
					return nil
				}
				src, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				for _, s := range suffixes {
					if strings.Contains(string(src), s) {
						where[s] = append(where[s], rel)
					}
				}
				return nil
			})
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(where).To(Equal(map[string][]string{
			"/.well-known/oauth-protected-resource":   {"harness/oauthclient/resource.go"},
			"/.well-known/oauth-authorization-server": {"harness/oauthclient/servermetadata.go"},
			"/.well-known/openid-configuration":       {"harness/oauthclient/servermetadata.go"},
		}))
	})
})
