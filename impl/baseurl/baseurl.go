// Package baseurl decides the {base_url} of the reference host: the prefix of
// every URL it advertises (the 401 challenge's resource_metadata, OAuth
// metadata, the verification URI, mcp.json).
package baseurl

import (
	"net/http"
	"strings"
)

// Resolver turns a request into the base URL the host advertises.
type Resolver struct {
	// Public, when set, is used as is (for a host behind a proxy or TLS terminator).
	Public string
}

// Of returns the base URL, without a trailing slash. Without a configured public
// URL it is derived from the request itself: the scheme from the connection and
// the authority from the Host header, so a host on any address advertises
// URLs a client can reach. Forwarded headers are never trusted implicitly.
func (r Resolver) Of(req *http.Request) string {
	if r.Public != "" {
		return strings.TrimRight(r.Public, "/")
	}
	scheme := "http"
	if req.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + req.Host
}
