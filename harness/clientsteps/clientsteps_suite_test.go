package clientsteps_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

func TestClientsteps(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Clientsteps Suite")
}

// fakeclientBin is the built test client, for every spec of the suite.
var fakeclientBin string

var _ = SynchronizedBeforeSuite(func() []byte {
	path, err := gexec.Build("github.com/conform-mcp/conform/harness/fakeclient/cmd/fakeclient")
	Expect(err).NotTo(HaveOccurred())
	return []byte(path)
}, func(path []byte) {
	fakeclientBin = string(path)
})

var _ = SynchronizedAfterSuite(func() {}, func() {
	gexec.CleanupBuildArtifacts()
})
