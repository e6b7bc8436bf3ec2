// Package origin guards the MCP endpoint against DNS rebinding: the MCP
// streamable HTTP transport (revision 2026-07-28, Security & Endpoint) asks a
// server to validate the Origin header of every request and to answer 403
// Forbidden when it is present and invalid.
package origin

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/conform-mcp/conform/impl/baseurl"
)

// forbiddenBody is a JSON-RPC error response without an id, which the
// transport allows as the body of the 403.
const forbiddenBody = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Forbidden: the Origin header names a site this host does not serve"}}`

// Guard returns next behind the Origin check. A request without an Origin
// (every non-browser client) passes; one whose Origin is the host's own
// passes; any other, "null" included, is refused before anything else is
// read. The host's own origin is its base URL's, or the origin the request
// itself names (its scheme and Host) when hosts allows that Host: a page
// served as http://localhost:PORT calling a host whose public URL says
// 127.0.0.1:PORT is same-origin with its request (RFC 6454 section 5), and
// the MCP conformance suite's dns-rebinding-protection scenario sends just
// that. A page from another site that a rebinding attack points at this
// host carries that site's Origin, and its requests that site's name in
// Host, which hosts does not allow, so it never reaches a tool.
func Guard(next http.Handler, base baseurl.Resolver, hosts baseurl.Hosts) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		values, present := r.Header["Origin"]
		if present && !(len(values) == 1 && own(values[0], r, base, hosts)) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(forbiddenBody))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// own reports whether value is the host's origin as Guard judges it.
func own(value string, r *http.Request, base baseurl.Resolver, hosts baseurl.Hosts) bool {
	if Same(value, base.Of(r)) {
		return true
	}
	if !hosts.Allow(r.Host) {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return Same(value, scheme+"://"+r.Host)
}

// Same reports whether value, an origin as an Origin header serialises it
// (scheme://host[:port], RFC 6454 section 6.1), is the origin of the URL
// base, whose path and query are ignored. Origins are compared by scheme,
// host and port (RFC 6454 section 5), case-insensitively as they are
// serialised in lower case, with the scheme's default port implied. Every
// same-origin judgement of the host uses it, so they cannot disagree.
func Same(value, base string) bool {
	o, err := url.Parse(strings.TrimSpace(value))
	if err != nil || o.Scheme == "" || o.Host == "" || (o.Path != "" && o.Path != "/") || o.RawQuery != "" {
		return false
	}
	b, err := url.Parse(base)
	if err != nil {
		return false
	}
	return strings.EqualFold(o.Scheme, b.Scheme) && strings.EqualFold(hostPort(o), hostPort(b))
}

// hostPort is the authority with the scheme's default port made explicit, so
// that http://h and http://h:80 are the same origin.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return u.Host + ":443"
	case "http":
		return u.Host + ":80"
	}
	return u.Host
}
