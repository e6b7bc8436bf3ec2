package main_test

import (
	"context"
	"regexp"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
)

var _ = Describe("conform diagnose", func() {
	var f fake
	BeforeEach(func() { f = serveFake(nil) })

	It("names gate 1 or 2 and conform login for an anonymous privileged call", func() {
		s := exits(conform(nil, "diagnose", "--target", f.url, "--tool", "afs_write", "--path", "/overlay/scratch.txt"), 1)
		Expect(s.Out).To(gbytes.Say(`Verdict: step 3, gate 1 or 2`))
		Expect(s.Out).To(gbytes.Say("`conform login --target " + f.url + "`"))
	})

	It("says an allowed call succeeds", func() {
		s := exits(conform(nil, "diagnose", "--target", f.url, "--tool", "afs_read", "--path", "/public/readme.md"), 0)
		Expect(s.Out).To(gbytes.Say(`Verdict: the call succeeds`))
	})

	It("takes the MCP endpoint's URL as --target", func() {
		s := exits(conform(nil, "diagnose", "--target", f.url+"/mcp", "--tool", "afs_read", "--path", "/public/readme.md"), 0)
		Expect(s.Out).To(gbytes.Say(`Verdict: the call succeeds`))
		Expect(s.Err).To(gbytes.Say(`--target ` + f.url + `/mcp is the MCP endpoint; using its base URL ` + f.url))
	})

	// As conform run does (issue 16 item 10).
	It("calls with the credential conform login stored, unless told --anonymous", func() {
		s := conform(nil, "login", "--target", f.url)
		Eventually(s.Out, 10*time.Second).Should(gbytes.Say(`Waiting for approval`))
		m := userCode.FindSubmatch(s.Out.Contents())
		Expect(m).NotTo(BeNil())
		Expect(f.oauth.Approve(context.Background(), string(m[1]))).To(Succeed())
		exits(s, 0)

		write := []string{"diagnose", "--target", f.url, "--tool", "afs_write", "--path", "/overlay/scratch.txt", "--arg", "content=hello"}
		d := exits(conform(nil, write...), 0)
		Expect(d.Err).To(gbytes.Say(`using the credential conform login stored for ` + regexp.QuoteMeta(f.url)))
		Expect(d.Out).To(gbytes.Say(`Verdict: the call succeeds`))

		d = exits(conform(nil, append(write, "--anonymous")...), 1)
		Expect(d.Out).To(gbytes.Say(`Verdict: step 3, gate 1 or 2`))
		Expect(stderr(d)).NotTo(ContainSubstring("conform login stored"))
	})

	It("is a usage error without --tool", func() {
		s := exits(conform(nil, "diagnose", "--target", f.url), 2)
		Expect(s.Err).To(gbytes.Say(`diagnose needs --target and --tool`))
	})
})
