package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/conform-mcp/conform/harness/fakehost"
)

// The GitHub Action (action.yml) is two shell scripts; these specs run them
// as the workflow would, so that the action cannot rot unseen.
var _ = Describe("the GitHub Action's scripts (issue 16 item 1)", Ordered, func() {
	var repo, bin string

	// script runs one of the action's scripts with env and returns its
	// session once it has exited with code.
	script := func(name string, code int, env ...string) *gexec.Session {
		GinkgoHelper()
		cmd := exec.Command(filepath.Join(repo, ".github", "action", name))
		cmd.Dir = GinkgoT().TempDir()
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + configDir(), "NO_COLOR=1",
			"GOCACHE=" + goEnv("GOCACHE"), "GOMODCACHE=" + goEnv("GOMODCACHE"), "GOFLAGS=" + os.Getenv("GOFLAGS"),
			"GOTOOLCHAIN=" + os.Getenv("GOTOOLCHAIN"), "GOPROXY=" + goEnv("GOPROXY")}, env...)
		s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		Eventually(s, 5*time.Minute).Should(gexec.Exit(code), "stdout:\n%s\nstderr:\n%s", s.Out.Contents(), s.Err.Contents())
		return s
	}

	// outputs reads the step outputs run.sh appended.
	outputs := func(file string) map[string]string {
		GinkgoHelper()
		raw, err := os.ReadFile(file)
		Expect(err).NotTo(HaveOccurred())
		out := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			k, v, ok := strings.Cut(line, "=")
			Expect(ok).To(BeTrue(), line)
			out[k] = v
		}
		return out
	}

	BeforeAll(func() {
		var err error
		repo, err = filepath.Abs("../..")
		Expect(err).NotTo(HaveOccurred())
		bin = filepath.Join(GinkgoT().TempDir(), "bin", "conform")
		s := script("build.sh", 0, "ACTION_PATH="+repo, "CONFORM_BIN="+bin)
		Expect(string(s.Out.Contents())).To(HavePrefix("conform "))
		Expect(bin).To(BeAnExistingFile())
	})

	It("runs against the embedded reference host and exposes the exit code and the counts", func() {
		dir := GinkgoT().TempDir()
		out := filepath.Join(dir, "outputs")
		report := filepath.Join(dir, "reports", "conform.xml")
		script("run.sh", 0, "CONFORM_BIN="+bin, "GITHUB_OUTPUT="+out,
			"INPUT_SPEC=source", "INPUT_FORMATS=progress,junit:"+report, "INPUT_ARGS=1 5")
		got := outputs(out)
		Expect(got).To(HaveKeyWithValue("exit-code", "0"))
		Expect(got).To(HaveKeyWithValue("failed", "0"))
		Expect(got).To(HaveKeyWithValue("not-run", "0"))
		Expect(got).To(HaveKeyWithValue("harness-errors", "0"))
		Expect(got["passed"]).To(Equal(got["tests"]))
		Expect(got["passed"]).NotTo(Equal("0"))
		Expect(report).To(BeAnExistingFile())
	})

	It("runs a sample profile and fails the step with conform's exit code", func() {
		host := serveFake(nil)
		dir := GinkgoT().TempDir()
		profile := filepath.Join(dir, "host.yaml")
		// No credential: the scenarios that need one are not run (exit 3).
		Expect(os.WriteFile(profile, []byte("target: "+host.url+"\n"), 0o600)).To(Succeed())
		out := filepath.Join(dir, "outputs")
		script("run.sh", 3, "CONFORM_BIN="+bin, "GITHUB_OUTPUT="+out,
			"INPUT_PROFILE="+profile, "INPUT_FORMATS=progress", "INPUT_TAGS=@SVC-1,@AUTH-1 && ~@needs-peer")
		got := outputs(out)
		Expect(got).To(HaveKeyWithValue("exit-code", "3"))
		Expect(got).To(HaveKeyWithValue("failed", "0"))
		Expect(got["not-run"]).NotTo(Equal("0"))
	})

	Describe("the fail-on-incomplete input (issue 24 item 4)", func() {
		// run runs a profile against host with the input set (unset when
		// setting is ""), expecting the step to exit with step, and returns
		// the step outputs.
		run := func(host fake, setting string, step int) map[string]string {
			GinkgoHelper()
			dir := GinkgoT().TempDir()
			profile := filepath.Join(dir, "host.yaml")
			// No credential: the scenarios that need one are not run.
			Expect(os.WriteFile(profile, []byte("target: "+host.url+"\n"), 0o600)).To(Succeed())
			out := filepath.Join(dir, "outputs")
			env := []string{"CONFORM_BIN=" + bin, "GITHUB_OUTPUT=" + out, "INPUT_PROFILE=" + profile, "INPUT_FORMATS=progress",
				"INPUT_TAGS=@SVC-1,@AUTH-1,@T401-1 && ~@needs-peer"}
			if setting != "" {
				env = append(env, "INPUT_FAIL_ON_INCOMPLETE="+setting)
			}
			script("run.sh", step, env...)
			return outputs(out)
		}

		It("fails the step on an incomplete run when true, as by default", func() {
			Expect(run(serveFake(nil), "true", 3)).To(HaveKeyWithValue("exit-code", "3"))
		})

		It("lets an incomplete run pass the step when false, its outputs still saying exit 3", func() {
			got := run(serveFake(nil), "false", 0)
			Expect(got).To(HaveKeyWithValue("exit-code", "3"))
			Expect(got["not-run"]).NotTo(Equal("0"))
		})

		It("fails the step on a failed run whatever it says", func() {
			got := run(serveFake([]fakehost.Break{fakehost.ChallengeMissing}), "false", 1)
			Expect(got).To(HaveKeyWithValue("exit-code", "1"))
		})

		It("refuses a value other than true or false before running anything", func() {
			got := run(serveFake(nil), "no", 2)
			Expect(got).To(Equal(map[string]string{"exit-code": "2"}))
		})
	})

	It("counts as conform does, a tolerated failure included", func() {
		host := serveFake([]fakehost.Break{fakehost.ChallengeMissing})
		dir := GinkgoT().TempDir()
		profile := filepath.Join(dir, "host.yaml")
		Expect(os.WriteFile(profile, []byte("target: "+host.url+"\n"), 0o600)).To(Succeed())
		expected := filepath.Join(dir, "expected.txt")
		Expect(os.WriteFile(expected, []byte("T401-1/401-anonymous-privileged-call-carries-challenge-body\n"), 0o600)).To(Succeed())
		out := filepath.Join(dir, "outputs")
		// The arguments span lines, as a YAML block gives them.
		s := script("run.sh", 0, "CONFORM_BIN="+bin, "GITHUB_OUTPUT="+out, "INPUT_PROFILE="+profile, "INPUT_FORMATS=progress",
			"INPUT_ARGS=--scenario\nT401-1/401-anonymous-privileged-call-carries-challenge-body\n--expected-failures "+expected)
		Expect(string(s.Out.Contents())).To(ContainSubstring("0 passed, 1 failed (1 tolerated)"))
		got := outputs(out)
		Expect(got).To(HaveKeyWithValue("tests", "1"))
		Expect(got).To(HaveKeyWithValue("passed", "0"))
		Expect(got).To(HaveKeyWithValue("failed", "1"))
		Expect(got).To(HaveKeyWithValue("tolerated", "1"))
	})

	It("exposes a usage error's exit code, with no counts to give", func() {
		out := filepath.Join(GinkgoT().TempDir(), "outputs")
		script("run.sh", 2, "CONFORM_BIN="+bin, "GITHUB_OUTPUT="+out, "INPUT_PROFILE=/no/such/profile.yaml")
		Expect(outputs(out)).To(Equal(map[string]string{"exit-code": "2"}))
	})
})

// goEnv is a go env setting of this process, so that the action's build
// reuses this machine's caches instead of filling new ones.
func goEnv(key string) string {
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
