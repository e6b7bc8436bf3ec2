package tools

import "context"

// slots bound how many expensive calls (the searches) run at once on the
// whole host. 32 anonymous searches at once took other callers' tools/list
// p99 from 1.3 ms to 180 ms (issue 26 item 6): each search keeps a CPU busy,
// and the per-request budget bounds one request, not how many run. With
// slots for half the CPUs, the other half stays with every other request; a
// search waits for a slot within its request's time, and a request whose
// time ends while it waits is answered like one that ran too long.
type slots chan struct{}

func newSlots(n int) slots { return make(slots, max(n, 1)) }

// take waits for a slot until ctx ends, and returns the function that
// gives it back.
func (s slots) take(ctx context.Context) (func(), error) {
	select {
	case s <- struct{}{}:
		return func() { <-s }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
