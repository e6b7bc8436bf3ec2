package main_test

import (
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

	It("is a usage error without --tool", func() {
		s := exits(conform(nil, "diagnose", "--target", f.url), 2)
		Expect(s.Err).To(gbytes.Say(`diagnose needs --target and --tool`))
	})
})
