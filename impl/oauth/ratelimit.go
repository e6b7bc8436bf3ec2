package oauth

import (
	"cmp"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxKeys bounds each limiter's memory: a flood from many addresses or
// clients cannot grow it without limit.
const maxKeys = 4096

// limiter is a token bucket per key (a source address or a client_id): each
// key may spend burst at once, refilled one every interval. It limits
// registrations per source address (source sections 7.3 and 8: "Registration
// is rate limited per source address"), device authorizations per address
// and per client, and wrong tries on the consent pages (RFC 8628 section
// 5.1). Times come from the server's clock so tests step through them.
//
// The limiter never forgets a key that is still throttled because other
// keys came: when it is full it first drops keys whose bucket has refilled
// (indistinguishable from new ones), then the least spent keys that are not
// throttled; only when every key is throttled do newcomers share one
// overflow bucket, so a flood from many addresses is limited as a whole.
type limiter struct {
	burst int
	every time.Duration

	mu       sync.Mutex
	keys     map[string]*rate.Limiter
	overflow *rate.Limiter
	// nextEvict holds off the next scan after one that freed nothing.
	nextEvict time.Time
}

func newLimiter(burst int, every time.Duration) *limiter {
	return &limiter{burst: burst, every: every, keys: make(map[string]*rate.Limiter),
		overflow: rate.NewLimiter(rate.Every(every), burst)}
}

// allow spends one token of key, or says how long until one is free.
func (l *limiter) allow(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.bucket(key, now)
	if b.AllowN(now, 1) {
		return true, 0
	}
	return false, l.wait(b, now)
}

// throttled reports, without spending, whether key has no token left, and
// how long until it has one.
func (l *limiter) throttled(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.keys[key]
	if !ok {
		if len(l.keys) < maxKeys {
			return false, 0
		}
		b = l.overflow
	}
	if b.TokensAt(now) >= 1 {
		return false, 0
	}
	return true, l.wait(b, now)
}

func (l *limiter) wait(b *rate.Limiter, now time.Time) time.Duration {
	missing := 1 - b.TokensAt(now)
	return time.Duration(math.Ceil(missing * float64(l.every)))
}

// bucket returns key's bucket, making room for it when the limiter is full.
func (l *limiter) bucket(key string, now time.Time) *rate.Limiter {
	if b, ok := l.keys[key]; ok {
		return b
	}
	if len(l.keys) >= maxKeys && !now.Before(l.nextEvict) {
		l.evict(now)
		if len(l.keys) >= maxKeys {
			// Every key is throttled; scanning again at once would free
			// nothing more, however many newcomers ask.
			l.nextEvict = now.Add(time.Second)
		}
	}
	if len(l.keys) >= maxKeys {
		return l.overflow
	}
	b := rate.NewLimiter(rate.Every(l.every), l.burst)
	l.keys[key] = b
	return b
}

// evict drops every key whose bucket is full again; if that frees nothing,
// the least spent eighth of the keys that are not throttled. Freeing many at
// once keeps a flood from new addresses from costing a scan per request.
func (l *limiter) evict(now time.Time) {
	type entry struct {
		key    string
		tokens float64
	}
	var spare []entry
	for k, b := range l.keys {
		tokens := b.TokensAt(now)
		switch {
		case tokens >= float64(l.burst):
			delete(l.keys, k)
		case tokens >= 1:
			spare = append(spare, entry{k, tokens})
		}
	}
	if len(l.keys) < maxKeys {
		return
	}
	slices.SortFunc(spare, func(a, b entry) int { return cmp.Compare(b.tokens, a.tokens) })
	for _, e := range spare[:min(len(spare), maxKeys/8)] {
		delete(l.keys, e.key)
	}
}

// peerKey is the source address of r that the limits key on: the
// connection's, or the one a trusted proxy forwarded (package clientaddr).
func (s *Server) peerKey(r *http.Request) string { return s.clients.Key(r) }

// retryAfterSeconds renders a wait for the Retry-After header (RFC 9110
// section 10.2.3), rounded up so a client that obeys it is not refused again.
func retryAfterSeconds(d time.Duration) int {
	s := int(math.Ceil(d.Seconds()))
	return max(s, 1)
}

// setRetryAfter adds the Retry-After header for a wait.
func setRetryAfter(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(wait)))
}
