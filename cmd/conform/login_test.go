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
})
