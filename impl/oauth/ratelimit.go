package oauth

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxPeers bounds the limiter's memory: a flood from many addresses cannot
// grow it without limit.
const maxPeers = 4096

// registrationLimiter limits registrations per source address (source
// sections 7.3 and 8: "Registration is rate limited per source address").
// Each address gets a token bucket of burst registrations, refilled one every
// interval. Times come from the server's clock so tests step through it.
type registrationLimiter struct {
	burst int
	every time.Duration

	mu    sync.Mutex
	peers map[string]*peerLimit
}

type peerLimit struct {
	limiter  *rate.Limiter
	lastSeen time.Time
}

func newRegistrationLimiter(burst int, every time.Duration) *registrationLimiter {
	return &registrationLimiter{burst: burst, every: every, peers: make(map[string]*peerLimit)}
}

// allow spends one registration for key, or says how long until one is free.
func (l *registrationLimiter) allow(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.peers[key]
	if !ok {
		l.evict(now)
		p = &peerLimit{limiter: rate.NewLimiter(rate.Every(l.every), l.burst)}
		l.peers[key] = p
	}
	p.lastSeen = now
	if p.limiter.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - p.limiter.TokensAt(now)
	return false, time.Duration(math.Ceil(missing * float64(l.every)))
}

// evict makes room for one more address. An address idle for long enough to
// refill its whole burst is indistinguishable from a new one, so forgetting
// it loses nothing. If every entry is recent, the longest idle goes.
func (l *registrationLimiter) evict(now time.Time) {
	if len(l.peers) < maxPeers {
		return
	}
	refill := time.Duration(l.burst) * l.every
	var oldestKey string
	var oldest time.Time
	for k, p := range l.peers {
		if now.Sub(p.lastSeen) >= refill {
			delete(l.peers, k)
			continue
		}
		if oldestKey == "" || p.lastSeen.Before(oldest) {
			oldestKey, oldest = k, p.lastSeen
		}
	}
	if len(l.peers) >= maxPeers {
		delete(l.peers, oldestKey)
	}
}

// peerKey is the source address of r, from the connection itself: headers
// such as X-Forwarded-For are client-controlled and would let a client pick
// its own bucket. An IPv6 host usually holds a whole /64, so the /64 is the
// address.
func peerKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	addr = addr.Unmap()
	if addr.Is6() {
		if p, err := addr.Prefix(64); err == nil {
			return p.String()
		}
	}
	return addr.String()
}

// retryAfterSeconds renders a wait for the Retry-After header (RFC 9110
// section 10.2.3), rounded up so a client that obeys it is not refused again.
func retryAfterSeconds(d time.Duration) int {
	s := int(math.Ceil(d.Seconds()))
	return max(s, 1)
}
