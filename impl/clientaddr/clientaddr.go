// Package clientaddr finds the address of the client behind a request, for
// the limits that key on it. By default that is the connection's address:
// headers are client-controlled and would let a client choose its own
// bucket. Behind a reverse proxy every connection comes from the proxy, so
// one address would share every limit among all clients and a few wrong
// tries would lock everyone out; there the operator names the proxies, and
// the address a trusted proxy forwards in X-Forwarded-For is believed.
package clientaddr

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Resolver finds client addresses. The zero Resolver trusts no proxy.
type Resolver struct {
	trusted []netip.Prefix
}

// New returns a Resolver that believes X-Forwarded-For from the given
// proxies, each an IP address or a CIDR prefix.
func New(trustedProxies []string) (Resolver, error) {
	var r Resolver
	for _, p := range trustedProxies {
		prefix, err := ParseProxy(p)
		if err != nil {
			return Resolver{}, err
		}
		r.trusted = append(r.trusted, prefix)
	}
	return r, nil
}

// ParseProxy reads one trusted proxy: an IP address or a CIDR prefix.
func ParseProxy(s string) (netip.Prefix, error) {
	if addr, err := netip.ParseAddr(s); err == nil && addr.Zone() == "" {
		addr = addr.Unmap()
		return netip.PrefixFrom(addr, addr.BitLen()), nil
	}
	prefix, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("trusted proxy %q: must be an IP address or a CIDR prefix such as 10.0.0.0/8", s)
	}
	return prefix.Masked(), nil
}

// Addr is the client's address: the connection's, unless that is a trusted
// proxy. Then X-Forwarded-For is read from the right, the end the nearest
// proxy appended to, past every trusted proxy, to the first address that is
// not one: whatever stands left of it the client could have written itself.
// An entry that is not an address stops the walk at the last one believed.
// ok is false when the connection's address is not an IP address (a test's
// or a Unix socket's), which is then returned as it is in raw.
func (r Resolver) Addr(req *http.Request) (addr netip.Addr, raw string, ok bool) {
	host, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil {
		host = req.RemoteAddr
	}
	addr, err = netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, host, false
	}
	addr = addr.WithZone("").Unmap()
	if !r.trusts(addr) {
		return addr, host, true
	}
	hops := forwardedFor(req.Header)
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := parseHop(hops[i])
		if err != nil || hop.Zone() != "" {
			break
		}
		addr = hop.Unmap()
		if !r.trusts(addr) {
			break
		}
	}
	return addr, addr.String(), true
}

// Key is the client's address as a limit's key: an IPv6 host usually holds
// a whole /64, so the /64 is the address.
func (r Resolver) Key(req *http.Request) string {
	addr, raw, ok := r.Addr(req)
	if !ok {
		return raw
	}
	return KeyOf(addr)
}

// KeyOf is an address as a limit's key: the IP, or its /64 for IPv6, where
// one host usually holds a whole /64.
func KeyOf(addr netip.Addr) string {
	addr = addr.Unmap()
	if addr.Is6() {
		if p, err := addr.Prefix(64); err == nil {
			return p.String()
		}
	}
	return addr.String()
}

// Trusts says whether addr is one of the trusted proxies, whose connections
// carry every client's requests.
func (r Resolver) Trusts(addr netip.Addr) bool { return r.trusts(addr.Unmap()) }

func (r Resolver) trusts(addr netip.Addr) bool {
	for _, p := range r.trusted {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// parseHop reads one X-Forwarded-For entry: an address, which some proxies
// write with the client's port ("203.0.113.9:41234", "[2001:db8::1]:443").
func parseHop(hop string) (netip.Addr, error) {
	if addr, err := netip.ParseAddr(hop); err == nil {
		return addr, nil
	}
	ap, err := netip.ParseAddrPort(hop)
	return ap.Addr(), err
}

// forwardedFor lists the X-Forwarded-For entries of every such header line,
// in order, trimmed.
func forwardedFor(h http.Header) []string {
	var hops []string
	for _, line := range h.Values("X-Forwarded-For") {
		for hop := range strings.SplitSeq(line, ",") {
			hops = append(hops, strings.TrimSpace(hop))
		}
	}
	return hops
}
