package gate

import "net/http"

// unauthorizedBody is the 401 body, the same for every cause (source 7.2).
const unauthorizedBody = `{"error":"Unauthorized"}`

// unauthorized writes the 401 of source 7.2: a Bearer challenge whose
// resource_metadata points at the protected-resource metadata (RFC 9728
// 5.1), and a body that does not say which gate refused, so a caller cannot
// probe which privileged tools exist (source 5.5).
func (g *gate) unauthorized(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("WWW-Authenticate", `Bearer resource_metadata="`+g.cfg.BaseURL.Of(r)+`/.well-known/oauth-protected-resource"`)
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte(unauthorizedBody))
}
