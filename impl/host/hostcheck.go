package host

import (
	"net/http"

	"github.com/conform-mcp/conform/impl/baseurl"
)

// misdirected is the reply to a request for a name this host does not
// answer for.
const misdirected = "Misdirected Request: this host does not answer for the name in the Host header; " +
	"a name a reverse proxy uses must be allowed (toolhost serve --allowed-host)\n"

// checkHost refuses, before any endpoint sees it, a request whose Host is
// neither the public URL's name, an allowed name, nor a loopback name (DNS
// rebinding). RFC 9110 15.5.20: 421 is the status of a request directed at
// a server that is not willing to answer for its target URI.
func checkHost(next http.Handler, hosts baseurl.Hosts) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts.Allow(r.Host) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(http.StatusMisdirectedRequest)
			_, _ = w.Write([]byte(misdirected))
			return
		}
		next.ServeHTTP(w, r)
	})
}
