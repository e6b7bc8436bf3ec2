package inprocess_test

import (
	"context"
	"fmt"
	"net/url"

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
// against it and passes, except those referenceExceptions names.
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

	DescribeTable("passes every scenario of a pack, none left not run but those it cannot offer", func(ctx context.Context, pack string) {
		run, err := runner.Run(ctx, runner.Options{Target: t, Pack: pack})
		Expect(err).NotTo(HaveOccurred())
		var problems []string
		notRun := false
		for _, r := range run.Results {
			if r.Status == outcome.Passed || r.Inapplicable() {
				continue
			}
			if e, ok := exceptionOf(r); ok && r.Status == e.status && (r.Status != outcome.Failed || run.Tolerated(r)) {
				Expect(r.Reason+fmt.Sprint(r.Departure)).To(ContainSubstring(e.says), r.ID)
				notRun = notRun || r.Status == outcome.NotRun
				continue
			}
			problems = append(problems, fmt.Sprintf("%s: %s %s %v", r.ID, r.Status, r.Reason, r.Departure))
		}
		Expect(problems).To(BeEmpty())
		Expect(run.Results).To(HaveLen(mustCount(pack)))
		if notRun {
			Expect(run.ExitCode()).To(Equal(outcome.ExitIncomplete))
		} else {
			Expect(run.ExitCode()).To(Equal(outcome.ExitPassed))
		}
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

// exception is what the reference host does with a scenario it does not
// pass, and a word of why.
type exception struct {
	status outcome.Status
	says   string
}

// referenceExceptions are the requirements whose scenarios the reference
// host does not pass, by requirement tag, beyond those not applicable to it:
// its tokens are opaque and it has no introspection, so AUD-1 cannot read
// their audience and is not run.
var referenceExceptions = map[string]exception{
	"@AUD-1": {outcome.NotRun, "introspection_endpoint"},
}

func exceptionOf(r outcome.Result) (exception, bool) {
	for _, tag := range r.Tags {
		if e, ok := referenceExceptions[tag]; ok {
			return e, true
		}
	}
	return exception{}, false
}
