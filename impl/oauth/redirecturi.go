package oauth

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// redirectRule opens the description of every refused redirect URI scheme.
// Source section 7.3 gives this text and says it continues after it.
const redirectRule = "redirect_uris must be https, RFC 8252 loopback http, or a private-use scheme"

// A registration is kept for up to seven days before its first use (source
// section 3) by anyone who asks, so what it may hold is bounded: a native app
// or an agent needs one or two redirect URIs of a few dozen bytes.
const (
	maxRedirectURIs   = 10
	maxRedirectURILen = 1024
)

// checkRedirectURIs returns why the list may not be registered, or "" when
// it may: at most maxRedirectURIs, each at most maxRedirectURILen bytes and
// accepted by checkRedirectURI.
func checkRedirectURIs(uris []string) string {
	if len(uris) > maxRedirectURIs {
		return fmt.Sprintf("redirect_uris holds %d URIs; at most %d are accepted", len(uris), maxRedirectURIs)
	}
	for _, u := range uris {
		if len(u) > maxRedirectURILen {
			return fmt.Sprintf("redirect_uris holds a URI of %d bytes; at most %d are accepted", len(u), maxRedirectURILen)
		}
		if why := checkRedirectURI(u); why != "" {
			return why
		}
	}
	return ""
}

// checkRedirectURI returns why raw may not be registered as a redirect URI,
// or "" when it may (source section 4, rule 1). The three accepted kinds:
//   - https with a host;
//   - http on a loopback IP literal, 127.0.0.1 or [::1], any port (RFC 8252
//     section 7.3; "localhost" is not accepted, section 8.3);
//   - a private-use scheme in reverse-domain form, which contains a dot
//     (RFC 8252 section 7.1), such as com.example.app:/callback.
func checkRedirectURI(raw string) string {
	refused := fmt.Sprintf("%s; got %q", redirectRule, raw)
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return refused
	}
	// RFC 6749 section 3.1.2: "The endpoint URI MUST NOT include a fragment
	// component." Userinfo has no place in a redirect and hides the real host.
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return fmt.Sprintf("redirect_uris must not contain a fragment; got %q", raw)
	}
	if u.User != nil {
		return fmt.Sprintf("redirect_uris must not contain userinfo; got %q", raw)
	}
	// RFC 3986 section 3.2.3 allows any digits in a port; a TCP port is
	// 1 to 65535, and no client can listen on any other.
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Sprintf("redirect_uris must name a port from 1 to 65535; got %q", raw)
		}
	}
	switch scheme := strings.ToLower(u.Scheme); {
	case scheme == "https":
		if u.Host == "" || u.Opaque != "" {
			return refused
		}
		return ""
	case scheme == "http":
		if !loopbackIP(u.Hostname()) || u.Opaque != "" {
			return refused
		}
		return ""
	case strings.Contains(scheme, "."):
		return ""
	default:
		return refused
	}
}

// loopbackIP reports whether host is one of the loopback IP literals RFC 8252
// section 7.3 names.
func loopbackIP(host string) bool {
	addr, err := netip.ParseAddr(host)
	if err != nil || addr.Zone() != "" {
		return false
	}
	return addr == netip.MustParseAddr("127.0.0.1") || addr == netip.IPv6Loopback()
}

// redirectRegistered reports whether requested is one of the registered
// redirect URIs. Matching is exact (RFC 6749 section 3.1.2.2 and the OAuth 2.0
// Security BCP), except that for loopback http URIs the port is ignored: the
// native app picks a free port at the time of the request, and RFC 8252
// section 7.3 says the server "MUST allow any port to be specified".
func redirectRegistered(registered []string, requested string) bool {
	req, err := url.Parse(requested)
	if err != nil {
		return false
	}
	for _, r := range registered {
		if r == requested {
			return true
		}
		reg, err := url.Parse(r)
		if err != nil || reg.Scheme != "http" || req.Scheme != "http" || !loopbackIP(reg.Hostname()) {
			continue
		}
		if reg.Hostname() == req.Hostname() && reg.EscapedPath() == req.EscapedPath() &&
			reg.RawQuery == req.RawQuery && req.User == nil && req.Fragment == "" {
			return true
		}
	}
	return false
}
