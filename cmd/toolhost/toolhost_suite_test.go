package main_test

import (
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"
)

func TestToolhost(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "toolhost command line")
}

// Owner secrets of 256 random bits (openssl rand -hex 32): one the specs
// export to instances that share it, one the hosts never hold.
const (
	exportedOwnerSecret = "e3a91c5f07b84d26a9f1c3e58b20d74f6a1e9c3b5d87f20a4c6e18b93d5f7a02"
	wrongOwnerSecret    = "1d6b9f3a8c2e5047b1f9d3a6c8e02b5f7d4a1c9e3b6f80d2a5c7e19b4d3f6a08"
)

// The reference host's binary, and the suite's, which drives it.
var toolhostPath, conformPath string

var _ = BeforeSuite(func() {
	var err error
	toolhostPath, err = gexec.Build("github.com/conform-mcp/conform/cmd/toolhost")
	Expect(err).NotTo(HaveOccurred())
	conformPath, err = gexec.Build("github.com/conform-mcp/conform/cmd/conform")
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	gexec.KillAndWait()
	gexec.CleanupBuildArtifacts()
})

// start runs one of the built binaries with a minimal environment: HOME and
// XDG_CONFIG_HOME in a fresh directory, so that no credential stored by a
// real `conform login` on this machine takes part, and NO_COLOR.
func start(path string, args ...string) *gexec.Session {
	return startWith(nil, path, args...)
}

// startWith is start with more environment variables.
func startWith(env []string, path string, args ...string) *gexec.Session {
	home := GinkgoT().TempDir()
	cmd := exec.Command(path, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home, "NO_COLOR=1"}, env...)
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	return s
}

func exits(s *gexec.Session, code int) *gexec.Session {
	GinkgoHelper()
	Eventually(s, 60*time.Second).Should(gexec.Exit(code), "stdout:\n%s\nstderr:\n%s", s.Out.Contents(), s.Err.Contents())
	return s
}

var serving = regexp.MustCompile(`toolhost serving (http://\S+)/mcp`)

// serve starts `toolhost serve` and returns the session and the base URL it
// prints. Port 0 lets the kernel pick a free port, so specs never collide;
// the printed URL carries the port it picked. The host is stopped with
// SIGTERM when the spec ends, if it still runs.
func serve(addr, data string) (*gexec.Session, string) {
	GinkgoHelper()
	return serveWith(nil, addr, data)
}

// serveWith is serve with more environment variables, and more arguments
// of serve.
func serveWith(env []string, addr, data string, args ...string) (*gexec.Session, string) {
	GinkgoHelper()
	s := startWith(env, toolhostPath, append([]string{"serve", "--addr", addr, "--data", data}, args...)...)
	DeferCleanup(func() { s.Terminate().Wait(10 * time.Second) })
	Eventually(s.Out, 10*time.Second).Should(gbytes.Say(`toolhost serving`))
	m := serving.FindSubmatch(s.Out.Contents())
	Expect(m).NotTo(BeNil())
	return s, string(m[1])
}

// regexpGroup returns the first group of pattern's first match in s.
func regexpGroup(pattern, s string) string {
	GinkgoHelper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(s)
	Expect(m).NotTo(BeNil(), "%s in %s", pattern, s)
	return m[1]
}
