package runner_test

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/conform-mcp/conform/harness/fakeauthz"
)

// The wrong verdicts real servers showed (issue 21 item 3), each reproduced
// by a fake: the pack must fail exactly the requirement departed from, and
// leave not run, naming the cause, what the server's choice or the run's own
// doing leaves without evidence.
var _ = Describe("the mcp-authorization pack against the wrong verdicts real servers showed", func() {
	// Item a: an error redirect to the other port is no acceptance of it.
	It("fails LOOPBACK-1 when the other port gets an error redirect, quoting the error", func() {
		expectDeparture(fakeauthz.LoopbackErrorRedirect, []string{asLoopback}, nil, "error=invalid_request")
	})
})
