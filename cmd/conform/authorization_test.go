package main_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
)

var _ = Describe("conform run --spec mcp-authorization against an MCP server that is not a tool host", func() {
	It("runs the pack, though an anonymous tools/list answers 401, and obtains a token through the approval command's stand-in", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		profile := filepath.Join(GinkgoT().TempDir(), "server.yaml")
		Expect(os.WriteFile(profile, []byte("target: "+h.Endpoint()+"\nmcp_authorization:\n  protected_request: {method: tools/list}\n"), 0o600)).To(Succeed())
		s := exits(conform(nil, "run", "--spec", "mcp-authorization", "--profile", profile, "--format", "progress"), 3)
		Expect(stderr(s)).NotTo(ContainSubstring("does not answer as an agent-facing tool host"))
		Expect(stdout(s)).To(ContainSubstring("(mcp-authorization/"), "the pack's own features ran")
		Expect(stdout(s)).To(ContainSubstring("set oauth.authorization_approval_command"))
		Expect(stdout(s)).To(MatchRegexp(`\d+ passed, 0 failed, \d+ not run`))
	})

	It("still holds the source pack to its own pre-flight", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		s := exits(conform(nil, "run", "--target", h.Endpoint()), 1)
		Expect(stderr(s)).To(ContainSubstring("does not answer as an agent-facing tool host"))
	})
})
