package baseurl

import (
	"net"
	"net/url"
	"strings"
)

// Hosts decides which Host headers the host answers. A page on another
// site can make a browser send requests to a host on the loopback or a
// private address by pointing its own name at that address (DNS
// rebinding); such requests carry the attacker's name in Host. So only the
// public URL's name, names an operator allows (a reverse proxy's), and
// loopback names are answered, on every endpoint.
type Hosts struct {
	names map[string]bool
}

// NewHosts allows the host name of public (when set) and every name in
// allowed, besides loopback names.
func NewHosts(public string, allowed []string) Hosts {
	h := Hosts{names: map[string]bool{}}
	if u, err := url.Parse(public); err == nil && u.Hostname() != "" {
		h.names[normal(u.Hostname())] = true
	}
	for _, a := range allowed {
		h.names[normal(a)] = true
	}
	return h
}

// Allow reports whether a request whose Host header is hostport may be
// answered. The port plays no part: a rebinding attack is told by name.
func (h Hosts) Allow(hostport string) bool {
	name := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		name = host
	}
	name = normal(strings.TrimSuffix(strings.TrimPrefix(name, "["), "]"))
	if name == "" {
		return false
	}
	return h.names[name] || Loopback(name)
}

// Loopback reports whether name is "localhost" or a loopback IP literal,
// which no other site's DNS can point at this host.
func Loopback(name string) bool {
	if name == "localhost" {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

// normal lower-cases a host name and drops the trailing dot of a fully
// qualified one, so that "Tools.Example.COM." and "tools.example.com" match.
func normal(name string) string {
	return strings.TrimSuffix(strings.ToLower(name), ".")
}
