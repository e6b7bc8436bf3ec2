package budget

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
)

// pool is the host-wide bound on the reply bytes in flight: what the
// requests being answered may hold at once, all of them together. Each
// request's bounds held, but 128 concurrent reads of a MiB that JSON writes
// six times over peaked at 4.4 GB, and 128 clients that never read their
// replies held 4.8 GB (issue 26 item 1). A call reserves what its reply may
// take before it reads (Budget.Hold), and the request gives it back once
// its answer is written, or its connection gave up.
//
// A request whose calls read one after another holds the first read's
// share while it waits for the next. Four batches that had each read once
// held 28 of 32 MiB and each waited for 7 more: none could go on, and all
// four ran out of their time. So a request that holds part of the pool
// waits for more only while some other holder is still at work, whose
// answer will give back what it holds; the request that would make every
// holder wait is refused at once instead, and what it gives back lets the
// others go on. The last holder at work may leave while the others wait:
// every answer given back wakes them, and one that still finds no room
// while every holder waits is refused then.
type pool struct {
	sem  *semaphore.Weighted
	size int64

	mu sync.Mutex
	// holders is how many requests hold part of the pool, waiting how
	// many of them wait for more.
	holders, waiting int
	// changed is closed, and replaced, whenever room may have been made:
	// a request gave back what it held, or one that held nothing stopped
	// waiting in the semaphore's queue, ahead of the holders that wait.
	changed chan struct{}
}

// ReplyFactor is how many bytes of a JSON reply one byte a read returns may
// take: JSON writes a "<" as six (\u003c), and the result holds the bytes
// too. What a read holds of the pool, and the least a reply bound may be
// for one read to fit, both follow from it.
const ReplyFactor = 7

func newPool(size int64) *pool {
	return &pool{sem: semaphore.NewWeighted(size), size: size, changed: make(chan struct{})}
}

// poolRetry is the Retry-After of a request that found the pool full for
// its whole time.
const poolRetry = time.Second

// errEveryHolderWaits is acquire's refusal of a holder whose wait no
// answer would end.
var errEveryHolderWaits = errors.New("every request holding the pool waits for more")

// acquire takes n of the pool, waiting until ctx is done; holding says
// whether the request holds part of it already. A request that holds
// nothing waits in the semaphore's queue; one that holds part tries again
// each time room may have been made (changed), so that it can be refused
// whenever every holder waits.
func (p *pool) acquire(ctx context.Context, n int64, holding bool) error {
	if !holding {
		// Counted a holder under the lock as it takes its share, so that
		// no holder that waits finds it holding and not counted.
		p.mu.Lock()
		if p.sem.TryAcquire(n) {
			p.holders++
			p.mu.Unlock()
			return nil
		}
		p.mu.Unlock()
		err := p.sem.Acquire(ctx, n)
		p.mu.Lock()
		defer p.mu.Unlock()
		if err == nil {
			p.holders++
		}
		p.wake()
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waiting++
	defer func() { p.waiting-- }()
	for {
		if p.sem.TryAcquire(n) {
			return nil
		}
		if p.waiting >= p.holders {
			return errEveryHolderWaits
		}
		changed := p.changed
		p.mu.Unlock()
		select {
		case <-changed:
			p.mu.Lock()
		case <-ctx.Done():
			p.mu.Lock()
			return ctx.Err()
		}
	}
}

// wake tells the holders that wait that room may have been made; p.mu is
// held.
func (p *pool) wake() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// giveBack returns n, all that a request held.
func (p *pool) giveBack(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sem.Release(n)
	p.holders--
	p.wake()
}

// Hold reserves n reply bytes of the host's in-flight bound for the rest of
// the request, waiting for them until the request's deadline. A request
// never waits for more than the whole bound, counting what it holds
// already, so it can never wait for itself; nor, holding part of it, for
// more while every other holder waits too (pool). Past the deadline, or
// refused that wait, the request is answered 503 with Retry-After.
func (b *Budget) Hold(ctx context.Context, n int64) error {
	if b == nil || b.pool == nil || n <= 0 {
		return nil
	}
	b.mu.Lock()
	n = min(n, b.pool.size-b.held)
	holding := b.held > 0
	b.mu.Unlock()
	if n <= 0 {
		return nil
	}
	ctx, cancel := context.WithDeadline(ctx, b.deadline)
	defer cancel()
	if err := b.pool.acquire(ctx, n, holding); err != nil {
		if errors.Is(err, errEveryHolderWaits) || ctx.Err() != nil && !time.Now().Before(b.deadline) {
			return b.fail(&Exceeded{
				Status:     http.StatusServiceUnavailable,
				Code:       codeInternalError,
				Message:    "Internal error: the host is answering as much as it holds at once; try again shortly",
				RetryAfter: poolRetry,
			})
		}
		return err
	}
	b.mu.Lock()
	b.held += n
	b.mu.Unlock()
	return nil
}

// Cover holds of the pool what the request's replies take (Reply) beyond
// what it already holds. A read holds its share before it reads (Hold);
// every other tool's reply, a search's or a listing's, is held here once
// its size is known, so that it counts against the bound while it waits
// for a slow client to take it, as a read's does.
func (b *Budget) Cover(ctx context.Context) error {
	if b == nil || b.pool == nil {
		return nil
	}
	b.mu.Lock()
	n := b.reply.Load() - b.held
	b.mu.Unlock()
	return b.Hold(ctx, n)
}

// release gives back what the request held.
func (b *Budget) release() {
	b.mu.Lock()
	held := b.held
	b.held = 0
	b.mu.Unlock()
	if held > 0 {
		b.pool.giveBack(held)
	}
}
