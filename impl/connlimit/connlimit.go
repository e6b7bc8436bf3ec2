// Package connlimit caps the connections the host holds, in total and per
// source address. Without a cap, 20,000 idle keep-alive connections from
// one client used up the host's file descriptors and new requests timed out
// (issue 15 item 4). A connection that is idle (between requests) or new
// (nothing read yet) is not working for anyone, so when a cap is reached
// the one that has waited longest is closed to make room, as RFC 9112
// section 9.8 lets a server close an idle connection at any time; only
// when every connection in the way is busy with a request is the newcomer
// closed instead.
package connlimit

import (
	"container/list"
	"net"
	"net/http"
	"net/netip"
	"sync"

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
}

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
}

// Listen returns ln held to l.
func Listen(ln net.Listener, l Limits) *Listener {
	return &Listener{Listener: ln, limits: l, byAddr: map[string]int{}, waiting: list.New()}
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
		_ = raw.Close()
	}
}

// admit counts c in when the caps leave room, making room by evicting the
// longest waiting connection of the same address, then of any, as needed.
// It returns the connections to close.
func (l *Listener) admit(c *conn) (bool, []*conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var evicted []*conn
	if c.key != "" && l.byAddr[c.key] >= l.limits.PerAddress {
		e := l.longestWaiting(c.key)
		if e == nil {
			return false, nil
		}
		l.release(e)
		evicted = append(evicted, e)
	}
	if l.total >= l.limits.Total {
		e := l.longestWaiting("")
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
	return true, evicted
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
		if c.counted {
			l.unwait(c)
			c.elem = l.waiting.PushBack(c)
		}
	case http.StateActive, http.StateHijacked:
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
}

// Close stops counting the connection, whoever closes it.
func (c *conn) Close() error {
	c.owner.mu.Lock()
	c.owner.release(c)
	c.owner.mu.Unlock()
	return c.Conn.Close()
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
