// Package baseurl decides the {base_url} of the reference host: the prefix of
// every URL it advertises (the 401 challenge's resource_metadata, OAuth
// metadata, the verification URI, mcp.json), and which Host headers it
// answers at all.
package baseurl

import (
	"net/http"
	"strings"
)

// Resolver turns a request into the base URL the host advertises.
type Resolver struct {
	// Public is the host's own URL, configuration rather than anything a
	// request says (`toolhost serve --public-url`, by default the listen
	// address).
	Public string
}

// Of returns the base URL, without a trailing slash: the public URL. Only a
// host embedded without one (in-process, on a test server whose address is
// chosen after the handler is built) derives it from the request: the
// scheme from the connection and the authority from the Host header, which
// Hosts then limits to loopback names. Forwarded headers are never trusted.
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
