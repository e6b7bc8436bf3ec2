package main_test

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/conform-mcp/conform/harness/fakehost"
)

func TestConform(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "conform command line")
}

// conformPath is the binary under test, built once for the whole suite.
var conformPath string

var _ = BeforeSuite(func() {
	var err error
	conformPath, err = gexec.Build("github.com/conform-mcp/conform/cmd/conform")
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	gexec.KillAndWait()
	gexec.CleanupBuildArtifacts()
})

// home is a fresh HOME and XDG_CONFIG_HOME per spec, so that no credential
// a real `conform login` stored on this machine leaks into a run.
var home string

var _ = BeforeEach(func() {
	home = GinkgoT().TempDir()
	// The feature runner's init runs "go env", and the go command starts a
	// telemetry process that writes under the config directory after conform
	// has exited, racing the removal of home. Telemetry off starts none.
	telemetry := filepath.Join(configDir(), "go", "telemetry")
	Expect(os.MkdirAll(telemetry, 0o700)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(telemetry, "mode"), []byte("off"), 0o600)).To(Succeed())
})

// configDir is where os.UserConfigDir() resolves inside the child process.
func configDir() string { return filepath.Join(home, "config") }

// conform starts the binary with a minimal environment (no inherited
// CONFORM_* variables) plus env, and NO_COLOR so output compares as text.
func conform(env []string, args ...string) *gexec.Session {
	cmd := exec.Command(conformPath, args...)
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + configDir(),
		"NO_COLOR=1",
	}, env...)
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	return s
}

// exits waits for the session to end with code. Every run here finishes in
// about a second; the bound only keeps a hung binary from hanging the suite.
func exits(s *gexec.Session, code int) *gexec.Session {
	GinkgoHelper()
	Eventually(s, 60*time.Second).Should(gexec.Exit(code), "stdout:\n%s\nstderr:\n%s", s.Out.Contents(), s.Err.Contents())
	return s
}

func stdout(s *gexec.Session) string { return string(s.Out.Contents()) }
func stderr(s *gexec.Session) string { return string(s.Err.Contents()) }

var scenarioCount = regexp.MustCompile(`^(\d+) scenarios$`)

// listed runs `conform list` with args and returns the scenario IDs it
// prints: the lines that are neither indented nor the final count.
func listed(args ...string) []string {
	GinkgoHelper()
	s := exits(conform(nil, append([]string{"list"}, args...)...), 0)
	var ids []string
	for _, line := range strings.Split(strings.TrimRight(stdout(s), "\n"), "\n") {
		if line == "" || strings.HasPrefix(line, " ") || scenarioCount.MatchString(line) {
			continue
		}
		ids = append(ids, line)
	}
	Expect(ids).NotTo(BeEmpty())
	return ids
}

// fake is a fake host served by this test process: MCP and OAuth on one
// address, compliant except for the departures it was given.
type fake struct {
	url        string
	credential string
	oauth      *fakehost.OAuth
}

// serveFake starts a fake host. Its polling interval is one second so that a
// device sign-in against it takes about a second, not the usual five.
func serveFake(breaks []fakehost.Break, oauthBreaks ...fakehost.OAuthBreak) fake {
	h := fakehost.New(fakehost.MCPOptions{Breaks: breaks})
	o := fakehost.NewOAuth(fakehost.OAuthOptions{Host: h, Interval: 1, Breaks: oauthBreaks})
	o.Mount(h.Mux())
	srv := httptest.NewServer(h.Handler())
	DeferCleanup(srv.Close)
	return fake{url: srv.URL, credential: h.Credential(), oauth: o}
}

// writeFile writes a file under the spec's home and returns its path.
func writeFile(name, content string) string {
	GinkgoHelper()
	path := filepath.Join(home, name)
	Expect(os.WriteFile(path, []byte(content), 0o600)).To(Succeed())
	return path
}
