// Package connlimit caps the connections the host holds, in total and per
// source address. Without a cap, 20,000 idle keep-alive connections from
// one client used up the host's file descriptors and new requests timed out
// (issue 15 item 4). A connection that is idle (between requests) or new
// (nothing read yet) is not working for anyone, so when a cap is reached
// the one that has waited longest is closed to make room, as RFC 9112
// section 9.8 lets a server close an idle connection at any time. Next
// comes the connection whose request arrives slowest: 1,100 connections
// from 11 addresses sending their bodies a byte a second filled the total
// cap, and 1 in 159 other requests was answered (issue 26 item 2). Only
// when every connection in the way is busy with a request that has
// arrived, or arrives fast enough, is the newcomer refused instead: with
// Limits.Refusal, a 503 with Retry-After, not a reset.
package connlimit

import (
	"container/list"
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/conform-mcp/conform/impl/clientaddr"
)

// Limits are the caps; each must be positive.
type Limits struct {
	// Total caps the connections held at once.
	Total int
	// PerAddress caps the connections of one source address (of one /64
	// for IPv6) held at once.
	PerAddress int
	// Shared, when set, says which source addresses carry many clients'
	// connections (the trusted reverse proxies): theirs count against Total
	// only, or a proxy would hold the whole deployment to PerAddress.
	Shared func(netip.Addr) bool
	// StallAfter is how long a request may arrive before its pace is
	// judged; DefaultStallAfter when 0.
	StallAfter time.Duration
	// MinBodyRate is the pace, in bytes a second, below which a request
	// still arriving after StallAfter may be closed to make room (its
	// header, then its body); DefaultMinBodyRate when 0.
	MinBodyRate float64
	// Refusal, when set, is written to a connection the caps leave no room
	// for before it is closed: HTTPRefusal for an HTTP/1.x listener.
	Refusal []byte
}

// The defaults of Limits' pace.
const (
	DefaultStallAfter  = time.Second
	DefaultMinBodyRate = 1024
)

// HTTPRefusal is the answer of a connection refused for a cap on a plain
// HTTP/1.x listener: 503 with Retry-After (RFC 9110 sections 15.6.4 and
// 10.2.3), then the connection is closed.
var HTTPRefusal = []byte("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: text/plain; charset=utf-8\r\n" +
	"Content-Length: 58\r\nConnection: close\r\n\r\nService Unavailable: too many connections; try again soon\n")

// Listener is a net.Listener that holds to Limits. Its ConnState must be
// the http.Server's ConnState, so that it knows which connections wait.
type Listener struct {
	net.Listener
	limits Limits

	mu     sync.Mutex
	total  int
	byAddr map[string]int
	// waiting are the new and idle connections, the longest waiting first.
	waiting *list.List
	// all are the counted connections.
	all map[*conn]struct{}

	// lingering bounds the refused connections being closed gently.
	lingering chan struct{}
}

// maxLingering refused connections at once are closed gently; past it a
// refused connection is closed at once.
const maxLingering = 64

// Listen returns ln held to l.
func Listen(ln net.Listener, l Limits) *Listener {
	if l.StallAfter <= 0 {
		l.StallAfter = DefaultStallAfter
	}
	if l.MinBodyRate <= 0 {
		l.MinBodyRate = DefaultMinBodyRate
	}
	return &Listener{Listener: ln, limits: l, byAddr: map[string]int{}, waiting: list.New(),
		all: map[*conn]struct{}{}, lingering: make(chan struct{}, maxLingering)}
}

// Accept returns the next connection the caps leave room for. A connection
// they leave none for is closed at once, never left in the kernel's queue,
// where it would wait unanswered.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		raw, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		c := &conn{Conn: raw, owner: l, key: l.addressKey(raw.RemoteAddr())}
		admitted, evicted := l.admit(c)
		for _, e := range evicted {
			_ = e.Conn.Close()
		}
		if admitted {
			return c, nil
		}
		l.refuse(raw)
	}
}

// refuse closes a connection the caps leave no room for, after writing
// Limits.Refusal. Closing with the request unread would reset the
// connection and could destroy the answer on its way, so the write side
// is shut first and what the client sends is read, for a second at most,
// before the close.
func (l *Listener) refuse(raw net.Conn) {
	tc, ok := raw.(*net.TCPConn)
	if l.limits.Refusal == nil || !ok {
		_ = raw.Close()
		return
	}
	select {
	case l.lingering <- struct{}{}:
	default:
		_ = raw.Close()
		return
	}
	go func() {
		defer func() { <-l.lingering }()
		defer tc.Close()
		_ = tc.SetDeadline(time.Now().Add(time.Second))
		if _, err := tc.Write(l.limits.Refusal); err != nil {
			return
		}
		_ = tc.CloseWrite()
		_, _ = io.Copy(io.Discard, io.LimitReader(tc, 64<<10))
	}()
}

// admit counts c in when the caps leave room, making room by evicting the
// longest waiting connection of the same address, then of any, as needed.
// It returns the connections to close.
func (l *Listener) admit(c *conn) (bool, []*conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var evicted []*conn
	now := time.Now()
	if c.key != "" && l.byAddr[c.key] >= l.limits.PerAddress {
		e := l.victim(c.key, now)
		if e == nil {
			return false, nil
		}
		l.release(e)
		evicted = append(evicted, e)
	}
	if l.total >= l.limits.Total {
		e := l.victim("", now)
		if e == nil {
			return false, evicted
		}
		l.release(e)
		evicted = append(evicted, e)
	}
	l.total++
	l.byAddr[c.key]++
	c.counted = true
	c.elem = l.waiting.PushBack(c)
	l.all[c] = struct{}{}
	return true, evicted
}

// victim is the connection of key (of any address when key is "") to
// close to make room: the one that has waited longest, else the one whose
// request arrives slowest, or nil.
func (l *Listener) victim(key string, now time.Time) *conn {
	if c := l.longestWaiting(key); c != nil {
		return c
	}
	return l.slowest(key, now)
}

// slowest is the connection of key (of any when "") whose request has
// arrived for at least StallAfter at less than MinBodyRate, the slowest
// first, or nil.
func (l *Listener) slowest(key string, now time.Time) *conn {
	var worst *conn
	var worstRate float64
	for c := range l.all {
		if key != "" && c.key != key {
			continue
		}
		rate, stalled := c.pace(now, l.limits)
		if stalled && (worst == nil || rate < worstRate) {
			worst, worstRate = c, rate
		}
	}
	return worst
}

// longestWaiting is the connection of key (of any address when key is "")
// that has waited longest, or nil.
func (l *Listener) longestWaiting(key string) *conn {
	for e := l.waiting.Front(); e != nil; e = e.Next() {
		if c := e.Value.(*conn); key == "" || c.key == key {
			return c
		}
	}
	return nil
}

// release stops counting c. l.mu must be held.
func (l *Listener) release(c *conn) {
	if !c.counted {
		return
	}
	c.counted = false
	l.total--
	if l.byAddr[c.key]--; l.byAddr[c.key] == 0 {
		delete(l.byAddr, c.key)
	}
	delete(l.all, c)
	l.unwait(c)
}

// unwait takes c off the waiting list. l.mu must be held.
func (l *Listener) unwait(c *conn) {
	if c.elem != nil {
		l.waiting.Remove(c.elem)
		c.elem = nil
	}
}

// ConnState follows the http.Server's connections: an idle one waits (at
// the back: it has waited least), an active or hijacked one does not.
func (l *Listener) ConnState(nc net.Conn, state http.ConnState) {
	c, ok := nc.(*conn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch state {
	case http.StateIdle:
		c.arriving = false
		if c.counted {
			l.unwait(c)
			c.elem = l.waiting.PushBack(c)
		}
	case http.StateActive:
		// A request's first byte came: it arrives until its body has.
		c.arriving, c.since, c.bodyBytes = true, time.Now(), 0
		l.unwait(c)
	case http.StateHijacked:
		c.arriving = false
		l.unwait(c)
	case http.StateClosed:
		l.release(c)
	}
}

// conn is one counted connection.
type conn struct {
	net.Conn
	owner *Listener
	key   string
	// counted and elem are guarded by owner.mu.
	counted bool
	elem    *list.Element
	// arriving says a request is still arriving: from its first byte until
	// its handler has read the body to its end (Bodies). since is when it
	// began, and once its handler started, when the body began;
	// bodyBytes is how much of the body came. All guarded by owner.mu.
	arriving  bool
	since     time.Time
	bodyBytes int64
}

// pace is the rate at which c's request arrives, and whether it is slow
// enough, for long enough, to be closed for room. A header counts as no
// bytes: a whole one arrives at once.
func (c *conn) pace(now time.Time, l Limits) (float64, bool) {
	if !c.arriving {
		return 0, false
	}
	elapsed := now.Sub(c.since)
	if elapsed < l.StallAfter {
		return 0, false
	}
	rate := float64(c.bodyBytes) / elapsed.Seconds()
	return rate, rate < l.MinBodyRate
}

// Close stops counting the connection, whoever closes it.
func (c *conn) Close() error {
	c.owner.mu.Lock()
	c.owner.release(c)
	c.owner.mu.Unlock()
	return c.Conn.Close()
}

type connKey struct{}

// ConnContext must be the http.Server's ConnContext, so that Bodies finds
// each request's connection.
func (l *Listener) ConnContext(ctx context.Context, nc net.Conn) context.Context {
	if c, ok := nc.(*conn); ok && c.owner == l {
		return context.WithValue(ctx, connKey{}, c)
	}
	return ctx
}

// Bodies follows how the body of each request to next arrives, so that a
// connection whose body trickles in can be closed to make room. It must
// wrap every handler of the server.
func (l *Listener) Bodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := r.Context().Value(connKey{}).(*conn)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		l.mu.Lock()
		// A request without a body has arrived with its header.
		c.since, c.bodyBytes, c.arriving = time.Now(), 0, r.ContentLength != 0
		l.mu.Unlock()
		r.Body = &body{ReadCloser: r.Body, c: c, length: r.ContentLength}
		next.ServeHTTP(w, r)
		l.arrived(c)
	})
}

// arrived marks c's request as come whole.
func (l *Listener) arrived(c *conn) {
	l.mu.Lock()
	c.arriving = false
	l.mu.Unlock()
}

// body counts what a request's body delivers for its connection; the body
// has arrived at its end, or once Content-Length bytes came.
type body struct {
	io.ReadCloser
	c      *conn
	length int64
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	l := b.c.owner
	l.mu.Lock()
	b.c.bodyBytes += int64(n)
	if err != nil || b.length > 0 && b.c.bodyBytes >= b.length {
		b.c.arriving = false
	}
	l.mu.Unlock()
	return n, err
}

// addressKey is the source address the per-address cap counts by
// (clientaddr.KeyOf), or "" for a shared one, which it does not cap.
func (l *Listener) addressKey(a net.Addr) string {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return a.String()
	}
	if l.limits.Shared != nil && l.limits.Shared(ap.Addr().Unmap()) {
		return ""
	}
	return clientaddr.KeyOf(ap.Addr())
}
