package main_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"
)

var userCode = regexp.MustCompile(`enter the code (\S+)`)

var _ = Describe("conform login", func() {
	It("signs in through the device grant, keeps the credential private, and later runs use it", func() {
		f := serveFake(nil)
		// The default state directory of later runs: os.UserConfigDir()/conform.
		state := filepath.Join(configDir(), "conform")
		// Given as the MCP endpoint, as other MCP clients take it: the
		// credential is kept for the base URL that later runs name.
		s := conform(nil, "login", "--target", f.url+"/mcp", "--state-dir", state)

		Eventually(s.Out, 10*time.Second).Should(gbytes.Say(`Waiting for approval`))
		m := userCode.FindSubmatch(s.Out.Contents())
		Expect(m).NotTo(BeNil())
		// The person at the verification URI approves.
		Expect(f.oauth.Approve(context.Background(), string(m[1]))).To(Succeed())

		exits(s, 0)
		Expect(s.Out).To(gbytes.Say(`Signed in to ` + regexp.QuoteMeta(f.url) + `;`))
		Expect(s.Err).To(gbytes.Say(`--target ` + regexp.QuoteMeta(f.url) + `/mcp is the MCP endpoint`))
		Expect(stdout(s)).NotTo(ContainSubstring(f.credential))
		info, err := os.Stat(filepath.Join(state, "login.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(info.Mode().Perm()).To(Equal(os.FileMode(0o600)))

		// No credential in the environment: the stored one makes the
		// credential scenarios run, and they pass.
		run := exits(conform(nil, "run", "--target", f.url, "--tags", "@needs-credential && ~@needs-peer && ~@needs-approval"), 0)
		Expect(run.Err).To(gbytes.Say(`using the credential conform login stored for ` + regexp.QuoteMeta(f.url)))
		Expect(run.Out).To(gbytes.Say(`(?m)^[1-9]\d* passed, 0 failed$`))
		Expect(stdout(run)).NotTo(ContainSubstring(f.credential))
	})

	It("keeps its state where --state-dir or CONFORM_STATE_DIR says, for every command alike", func() {
		f := serveFake(nil)
		state := filepath.Join(GinkgoT().TempDir(), "elsewhere")
		s := conform(nil, "login", "--target", f.url, "--state-dir", state)
		Eventually(s.Out, 10*time.Second).Should(gbytes.Say(`Waiting for approval`))
		m := userCode.FindSubmatch(s.Out.Contents())
		Expect(m).NotTo(BeNil())
		Expect(f.oauth.Approve(context.Background(), string(m[1]))).To(Succeed())
		exits(s, 0)
		Expect(filepath.Join(state, "login.json")).To(BeAnExistingFile())

		tags := "@needs-credential && ~@needs-peer && ~@needs-approval"
		// The default directory holds nothing: the credential is not found there.
		elsewhere := exits(conform(nil, "run", "--target", f.url, "--tags", tags), 3)
		Expect(stderr(elsewhere)).NotTo(ContainSubstring("using the credential conform login stored"))

		byFlag := exits(conform(nil, "run", "--state-dir", state, "--target", f.url, "--tags", tags), 0)
		Expect(byFlag.Err).To(gbytes.Say(`using the credential conform login stored for ` + regexp.QuoteMeta(f.url)))
		byEnv := exits(conform([]string{"CONFORM_STATE_DIR=" + state}, "run", "--target", f.url, "--tags", tags), 0)
		Expect(byEnv.Err).To(gbytes.Say(`using the credential conform login stored for ` + regexp.QuoteMeta(f.url)))
		diagnosed := conform(nil, "diagnose", "--state-dir", state, "--target", f.url, "--tool", "afs_read", "--path", "/public/readme.md")
		Eventually(diagnosed, 30*time.Second).Should(gexec.Exit())
		Expect(diagnosed.Err).To(gbytes.Say(`using the credential conform login stored for ` + regexp.QuoteMeta(f.url)))
	})
})
