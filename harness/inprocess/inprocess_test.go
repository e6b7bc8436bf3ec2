package inprocess_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/inprocess"
	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/spec"
)

// The reference host's gate (PRODUCT.md section 1.2): every scenario runs
// against it and passes; none is left not run but those that judge what the
// texts let a server leave out and the reference host does (a client secret,
// an introspection endpoint), which say they are not applicable, and those
// its own choices leave nothing to judge (choiceNotRun).
var _ = Describe("The in-process reference host", func() {
	var (
		t    *target.Target
		stop func()
	)
	BeforeEach(func(ctx context.Context) {
		var err error
		t, stop, err = inprocess.Start(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(stop)
	})

	DescribeTable("passes every scenario of a pack, none left not run but by its own choices", func(ctx context.Context, pack string) {
		run, err := runner.Run(ctx, runner.Options{Target: t, Pack: pack})
		Expect(err).NotTo(HaveOccurred())
		var problems []string
		byChoice := 0
		for _, r := range run.Results {
			switch why, chosen := choiceNotRun[r.ID]; {
			case r.Inapplicable():
			case r.Status == outcome.NotRun && chosen && strings.Contains(r.Reason, why):
				byChoice++
			case r.Status != outcome.Passed:
				problems = append(problems, fmt.Sprintf("%s: %s %s %v", r.ID, r.Status, r.Reason, r.Departure))
			}
		}
		Expect(problems).To(BeEmpty())
		Expect(run.Results).To(HaveLen(mustCount(pack)))
		want := outcome.ExitPassed
		if byChoice > 0 {
			want = outcome.ExitIncomplete
		}
		Expect(run.ExitCode()).To(Equal(want))
	},
		Entry("the source document", spec.Source),
		Entry("MCP authorization", spec.Authorization),
	)

	It("offers everything the scenarios may need", func() {
		for _, c := range []string{target.NeedsCredential, target.NeedsPeer, target.NeedsClock, target.NeedsTime, target.NeedsApproval,
			target.NeedsAuthorizationApproval, target.NeedsExpiredToken, target.NeedsOtherResourceToken, target.NeedsLimitedToken, target.NeedsOtherUserToken} {
			Expect(t.Lacks(c)).To(BeEmpty(), c)
		}
	})

	It("signs in to two instances that refuse each other's credentials", func(ctx context.Context) {
		peer, err := url.Parse(t.Profile.Peer.Target)
		Expect(err).NotTo(HaveOccurred())
		Expect(peer.Host).NotTo(Equal(t.Profile.Target))
		own := mcpclient.New(t.URL("/mcp"), t.HTTP)
		r, err := own.Call(ctx, "Bearer "+t.Credential, "tools/list", map[string]any{})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Status).To(Equal(200))
		r, err = own.Call(ctx, "Bearer "+t.PeerCredential, "tools/list", map[string]any{})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Status).To(Equal(401))
	})
})

// mustCount is the number of scenarios in a pack's embedded features, so
// that a run that silently drops scenarios cannot pass.
func mustCount(pack string) int {
	all, err := runner.List(pack, "", nil)
	Expect(err).NotTo(HaveOccurred())
	Expect(all).NotTo(BeEmpty())
	return len(all)
}

// choiceNotRun are the scenarios the reference host's own choices (PRODUCT.md
// section 6) leave nothing to judge, each with the words its reason must
// say: it is stateless, so it opens no session whose handle a request could
// present without a token (HANDLE-1) or with another user's (HANDLE-2); its
// tokens are opaque, so the scope its limited token holds, which a step-up
// adds to the challenged scopes, cannot be read (SCOPE-4).
var choiceNotRun = map[string]string{}
