package oauth

import (
	"sync"
	"time"

	"github.com/conform-mcp/conform/impl/store"
)

// polls keeps, in memory, when each pending device code was last polled and
// the interval it must now keep (RFC 8628 section 3.5). Stored, each
// authorization_pending answer cost a store commit, 28 KB of disk writes
// for a poll that changes nothing (issue 26 item 4). A restart forgets the
// timing only: the next poll is then a first poll, never too soon, and the
// interval starts again from the code's own.
//
// Entries are kept only for codes that were polled while pending and
// dropped once the code leaves the window, so the map holds at most the
// pending codes, which the per-client cap bounds.
type polls struct {
	mu sync.Mutex
	m  map[store.Digest]poll
}

// poll is one device code's polling so far.
type poll struct {
	last     time.Time
	interval time.Duration
	// expires is the code's end; the entry is useless after it.
	expires time.Time
}

func newPolls() *polls { return &polls{m: make(map[store.Digest]poll)} }

// record notes a poll of the pending code d at now and reports whether it
// came sooner than the interval, which then grows by slowDownStep ("the
// interval MUST be increased by 5 seconds for this and all subsequent
// requests"). The first poll has nothing to be too soon after.
func (p *polls) record(d store.Digest, dc store.DeviceCode, now time.Time) (tooSoon bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, seen := p.m[d]
	if !seen {
		e = poll{interval: dc.Interval, expires: dc.ExpiresAt}
	}
	tooSoon = seen && now.Sub(e.last) < e.interval
	if tooSoon {
		e.interval += slowDownStep
	}
	e.last = now
	p.m[d] = e
	return tooSoon
}

// forget drops d, whose code was redeemed.
func (p *polls) forget(d store.Digest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.m, d)
}

// sweep drops the codes whose window is over.
func (p *polls) sweep(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for d, e := range p.m {
		if !now.Before(e.expires) {
			delete(p.m, d)
		}
	}
}
