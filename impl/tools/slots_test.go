package tools

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/budget"
)

// Issue 26 item 6: a flood of searches must not starve cheap calls.
var _ = Describe("the host's slots for expensive calls", func() {
	It("runs at most as many expensive calls at once as there are slots, while cheap calls go on", func() {
		var running, most atomic.Int32
		release := make(chan struct{})
		search := tool{name: "search", expensive: true, slots: newSlots(2), handle: func(context.Context, json.RawMessage) *mcp.CallToolResult {
			n := running.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			<-release
			running.Add(-1)
			return success("found", nil)
		}}
		cheap := tool{name: "list", handle: func(context.Context, json.RawMessage) *mcp.CallToolResult { return success("listed", nil) }}

		var wg sync.WaitGroup
		results := make([]*mcp.CallToolResult, 6)
		for i := range results {
			wg.Go(func() { results[i] = search.call(context.Background(), nil) })
		}
		Eventually(running.Load).Should(Equal(int32(2)))
		Consistently(running.Load, 50*time.Millisecond).Should(Equal(int32(2)))
		Expect(cheap.call(context.Background(), nil).IsError).To(BeFalse())
		close(release)
		wg.Wait()
		Expect(most.Load()).To(Equal(int32(2)))
		for _, r := range results {
			Expect(r.IsError).To(BeFalse())
		}
	})

	It("answers a call whose request's time ends while it waits for a slot as over time", func() {
		busy := newSlots(1)
		held, err := busy.take(context.Background())
		Expect(err).NotTo(HaveOccurred())
		defer held()
		ran := false
		search := tool{name: "search", expensive: true, slots: busy, handle: func(context.Context, json.RawMessage) *mcp.CallToolResult {
			ran = true
			return success("found", nil)
		}}
		b := budget.New(budget.Limits{ReplyBytes: 1 << 20, ScanBytes: 1 << 20, Timeout: 20 * time.Millisecond}, time.Now())
		res := search.call(budget.NewContext(context.Background(), b), nil)
		Expect(res.IsError).To(BeTrue())
		Expect(ran).To(BeFalse())
		Expect(b.Err()).To(MatchError("Internal error: the calls of this request ran longer than 20ms; send fewer calls per request"))
	})
})
