package clientsteps_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/clientrun"
	"github.com/conform-mcp/conform/harness/outcome"
)

// The verdict rules of issue 23, item 4: what is not a verdict on the client.
var _ = Describe("the client half's verdicts", func() {
	It("leaves every scenario not run, naming the cause, for a client that never sends a request", func() {
		cfg := config("mcp-authorization", "")
		cfg.Command, cfg.Second = "echo 'not an MCP client'", ""
		got, err := runPack(cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).NotTo(BeEmpty())
		for name, v := range got {
			Expect(v.status).To(Equal(outcome.NotRun), name)
			Expect(v.why).To(Or(ContainSubstring("never engaged"), ContainSubstring("the control failed"), ContainSubstring("{tool}")), name)
		}
	})

	It("leaves a scenario that needs a tool call not run when no command names {tool}", func() {
		cfg := config("source", "")
		cfg.Second = ""
		got, err := runPack(cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).NotTo(BeEmpty())
		for name, v := range got {
			Expect(v.status).To(Equal(outcome.NotRun), name)
			Expect(v.why).To(ContainSubstring("{tool}"), name)
		}
	})

	It("takes no crash for a refusal, and judges a refusal only after a control", func() {
		cfg := config("mcp-authorization", "")
		// A client that dies by a signal whenever it would stop with an error.
		cfg.Command = "sh -c " + clientrun.Quote(cfg.Command+" || kill -KILL $$")
		got, err := runPack(cfg)
		Expect(err).NotTo(HaveOccurred())
		for _, name := range []string{cliOtherIssuer, cliNoPKCE, cliIssWrong, cliIssMissing, cliStateWrong} {
			Expect(got[name].status).To(Equal(outcome.NotRun), name)
			Expect(got[name].why).To(ContainSubstring("a crash is no refusal"), name)
		}

		cfg = config("mcp-authorization", "plain-pkce")
		got, err = runPack(cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(got[cliNoPKCE].status).To(Equal(outcome.NotRun))
		Expect(got[cliNoPKCE].why).To(ContainSubstring("a refusal is judged only after a control"))
	})

	It("names the check an authorization response fails in a departure: the state's, or the iss's", func() {
		got, err := runPack(config("mcp-authorization", "state-not-checked"))
		Expect(err).NotTo(HaveOccurred())
		Expect(got[cliStateWrong].status).To(Equal(outcome.Failed))
		Expect(got[cliStateWrong].why).To(ContainSubstring("state is not the one the client sent"))
		Expect(got[cliStateWrong].why).NotTo(ContainSubstring("iss"))

		got, err = runPack(config("mcp-authorization", "iss-not-checked"))
		Expect(err).NotTo(HaveOccurred())
		Expect(got[cliIssWrong].why).To(ContainSubstring("iss is not the issuer's"))
		Expect(got[cliIssMissing].why).To(ContainSubstring("has no iss"))
	})

	It("says, of a client that never learns its server moved, that it did not read the metadata again", func() {
		cfg := config("mcp-authorization", "")
		// The reference client at its first start against each server, and
		// at the next a client that fails before any request.
		cfg.Command = `m={state_dir}/started.$(printf %s {url} | cksum | cut -d' ' -f1); [ -e "$m" ] && exit 1; touch "$m"; ` + cfg.Command
		got, err := runPack(cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(got[cliRebind].status).To(Equal(outcome.NotRun))
		Expect(got[cliRebind].why).To(ContainSubstring("did not ask for the protected resource metadata again"))
	})

	It("judges a client that speaks only 2026-07-28 on every scenario, as one that falls back: the scripted servers speak both eras", func() {
		cfg := config("mcp-authorization", "")
		cfg.Command += " -revision 2026-07-28"
		cfg.Second += " -revision 2026-07-28"
		expectPassedBut(cfg, notGiven...)
	})

	It("takes no timeout for a refusal either", func() {
		cfg := config("mcp-authorization", "")
		cfg.Timeout = 3 * time.Second
		// A client that hangs whenever it would stop with an error.
		cfg.Command = cfg.Command + " || sleep 60"
		got, err := runPack(cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(got[cliNoPKCE].status).To(Equal(outcome.NotRun))
		Expect(got[cliNoPKCE].why).To(ContainSubstring("still running when its time was up"))
		Expect(strings.Contains(got[cliS256].why, "time")).To(BeFalse(), "a client that completes is judged as usual")
		Expect(got[cliS256].status).To(Equal(outcome.Passed))
	})
})
