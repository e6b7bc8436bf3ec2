package steps

import (
	"errors"
	"net/http"

	"github.com/cucumber/godog"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/target"
)

var _ = Describe("deviceAuthorizationRefused", func() {
	judge := func(status int, retryAfter string) error {
		h := http.Header{}
		if retryAfter != "" {
			h.Set("Retry-After", retryAfter)
		}
		st := &sourceState{State: &State{Suite: &Suite{Target: &target.Target{}, Notes: NewNotes()}, vars: map[string]string{}}}
		st.oauth = &oauthclient.Reply{Status: status, Header: h}
		return st.deviceAuthorizationRefused()
	}

	It("passes a plain 4xx refusal of the removed registration", func() {
		Expect(judge(http.StatusUnauthorized, "")).To(Succeed())
	})

	It("fails an answer that starts a flow", func() {
		var d *outcome.Departure
		Expect(errors.As(judge(http.StatusOK, ""), &d)).To(BeTrue())
	})

	DescribeTable("leaves the scenario not run when a rate limit answered, which shows nothing of the registration",
		func(status int, retryAfter string) {
			err := judge(status, retryAfter)
			Expect(errors.Is(err, godog.ErrSkip)).To(BeTrue(), "%v", err)
			Expect(errors.Is(err, oauthclient.ErrThrottled)).To(BeTrue())
		},
		Entry("429", http.StatusTooManyRequests, ""),
		Entry("a 4xx with Retry-After", http.StatusBadRequest, "30"),
	)
})
