package fakeauthz

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/conform-mcp/conform/harness/fakeprotocol"
)

// metadataPath is where the fake serves its protected resource metadata: the
// MCP endpoint's path inserted after the well-known prefix (RFC 9728 3.1),
// and nowhere else; for an endpoint at the root, the root well-known URI.
func (h *Host) metadataPath() string {
	return "/.well-known/oauth-protected-resource" + strings.TrimSuffix(h.path(), "/")
}

// path is the MCP endpoint's path: /mcp, unless a choice puts it elsewhere.
func (h *Host) path() string {
	switch {
	case h.breaks[EndpointAtRoot]:
		return "/"
	case h.breaks[EndpointNested]:
		return "/api/v1/mcp"
	}
	return "/mcp"
}

func (h *Host) serveResource(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.served++
	dead := h.breaks[StopsAnswering] && h.served > stopsAfter
	h.mu.Unlock()
	if dead {
		// Gone mid-run: the connection closes with no answer.
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close()
		}
		return
	}
	switch r.URL.Path {
	case h.metadataPath():
		h.serveMetadata(w)
	case h.path():
		h.serveMCP(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (h *Host) serveMetadata(w http.ResponseWriter) {
	if h.breaks[BasicAuthOnly] || h.breaks[NoAuthorization] {
		http.NotFound(w, nil)
		return
	}
	if h.breaks[MetadataNotJSONType] {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, `{"resource":"`+h.Endpoint()+`","authorization_servers":["`+h.Issuer()+`"]}`)
		return
	}
	if h.breaks[MetadataUndiscoverable] {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if h.breaks[MetadataNotJSON] {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html><body>OAuth protected resource</body></html>")
		return
	}
	doc := map[string]any{
		"resource":                 h.Endpoint(),
		"authorization_servers":    []string{h.Issuer()},
		"scopes_supported":         h.scopes(),
		"bearer_methods_supported": []string{"header"},
	}
	if h.breaks[MetadataWithoutServers] {
		// Left out, not served empty: an empty array would break PRM-6 too.
		delete(doc, "authorization_servers")
	}
	if h.breaks[ResourceIsOrigin] {
		doc["resource"] = h.rsURL
	}
	if h.breaks[MetadataEmptyArray] {
		doc["bearer_methods_supported"] = []string{}
	}
	if h.breaks[MetadataPlainJWKS] {
		doc["jwks_uri"] = "http://rs.conform.invalid/jwks"
	}
	if h.breaks[MetadataWithoutScopes] {
		delete(doc, "scopes_supported")
	}
	writeJSON(w, http.StatusOK, doc)
}

func (h *Host) scopes() []string {
	s := []string{ScopeTools, ScopeWrite}
	if h.breaks[ScopeChallengeIncremental] {
		s = append(s, ScopeAdmin)
	}
	if h.breaks[OfflineAccessAdvertised] {
		s = append(s, "offline_access")
	}
	return s
}

// needed are the scopes a tools/call needs: mcp:write, and mcp:admin
// besides under ScopeChallengeIncremental.
func (h *Host) needed() []string {
	if h.breaks[ScopeChallengeIncremental] {
		return []string{ScopeWrite, ScopeAdmin}
	}
	return []string{ScopeWrite}
}

// olderRevision is the revision before 2026-07-28 the fake speaks, within
// an initialize session.
const olderRevision = "2025-06-18"

// serveMCP checks the Origin, then the token, then the scope, then answers
// the JSON-RPC request within a session, over SSE.
func (h *Host) serveMCP(w http.ResponseWriter, r *http.Request) {
	if o, ok := r.Header["Origin"]; ok && !h.breaks[OriginIgnored] && (len(o) != 1 || o[0] != h.rsURL) {
		writeJSON(w, http.StatusForbidden, map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": -32600, "message": "Forbidden origin"}})
		return
	}
	if h.breaks[BasicAuthOnly] && !strings.HasPrefix(r.Header.Get("Authorization"), "Basic ") {
		w.Header().Set("WWW-Authenticate", `Basic realm="fakeauthz"`)
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "unauthorized"})
		return
	}
	if h.breaks[MalformedTokenHangsUp] && malformed(r) {
		// The connection closes with no answer at all.
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close()
		}
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	// modern: this request is answered as 2026-07-28 has it, statelessly.
	modern := h.breaks[Speaks2026Only] || h.breaks[SpeaksBothEras] && r.Header.Get("MCP-Protocol-Version") == fakeprotocol.Modern
	if modern {
		// Headers before the token: the transport fixes no order.
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(body, &m)
		if refusal := fakeprotocol.CheckModern(r, m.Method, m.ID, m.Params); refusal != nil {
			writeJSON(w, http.StatusBadRequest, refusal.Body(m.ID))
			return
		}
	}
	g, status := h.authenticate(r)
	if _, presented := r.Header["Authorization"]; status != 0 && !presented && h.breaks[SessionIsCredential] {
		// The session stands in for the token it was opened with.
		h.mu.Lock()
		subject, open := h.sessions[r.Header.Get("Mcp-Session-Id")]
		h.mu.Unlock()
		if open {
			g, status = &grant{subject: subject, scope: ScopeTools + " " + ScopeWrite}, 0
		}
	}
	if status != 0 {
		_, presented := r.Header["Authorization"]
		h.challenge(w, status, presented)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": -32700, "message": "Parse error"}})
		return
	}
	if g != nil && h.breaks[LimitedTokenRefusedEverywhere] && !hasScope(g.scope, ScopeWrite) {
		h.insufficientScope(w, ScopeTools+" "+ScopeWrite)
		return
	}
	if msg.Method == "tools/call" && g != nil && !h.breaks[ScopeNotEnforced] {
		var missing []string
		for _, s := range h.needed() {
			if !hasScope(g.scope, s) {
				missing = append(missing, s)
			}
		}
		switch {
		case len(missing) > 0 && h.breaks[ScopeChallengeIncremental]:
			// One missing scope at a time.
			h.insufficientScope(w, missing[0])
			return
		case len(missing) > 0:
			h.insufficientScope(w, ScopeTools+" "+ScopeWrite)
			return
		}
	}
	switch {
	case modern && msg.Method == "server/discover":
		var older []string
		if h.breaks[SpeaksBothEras] {
			older = []string{olderRevision}
		}
		writeSSE(w, msg.ID, fakeprotocol.Discover("fakeauthz", older...))
		return
	case msg.Method == "initialize":
		id := random()
		h.mu.Lock()
		h.sessions[id] = subject(g)
		h.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", id)
		writeSSE(w, msg.ID, map[string]any{"protocolVersion": olderRevision, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "fakeauthz", "version": "1"}})
		return
	case len(msg.ID) == 0:
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// A session serves only the subject that opened it (security best
	// practices 2.4.2), unless SessionUnbound.
	h.mu.Lock()
	owner, open := h.sessions[r.Header.Get("Mcp-Session-Id")]
	h.mu.Unlock()
	known := open && (owner == subject(g) || h.breaks[SessionUnbound]) || modern
	if !known {
		writeJSON(w, http.StatusBadRequest, map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": -32000, "message": "Bad Request: no valid session"}})
		return
	}
	switch msg.Method {
	case "tools/list":
		writeSSE(w, msg.ID, fakeprotocol.CompleteList(r, map[string]any{"tools": []any{map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object"}}}}))
	case "tools/call":
		writeSSE(w, msg.ID, fakeprotocol.Complete(r, map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo"}}}))
	default:
		writeSSE(w, msg.ID, fakeprotocol.Complete(r, map[string]any{}))
	}
}

// authenticate returns the request's grant, or the status refusing it.
// A nil grant with status 0 is an anonymous request the AnonymousServed
// departure lets through.
func (h *Host) authenticate(r *http.Request) (*grant, int) {
	if h.breaks[NoAuthorization] {
		return nil, 0
	}
	v, present := r.Header["Authorization"]
	if !present {
		if q := r.URL.Query().Get("access_token"); q != "" && h.breaks[QueryTokenAccepted] {
			v = []string{"Bearer " + q}
		} else if h.breaks[AnonymousServed] {
			return nil, 0
		} else {
			return nil, http.StatusUnauthorized
		}
	}
	scheme, token, _ := strings.Cut(v[0], " ")
	token = strings.TrimSpace(token)
	if len(v) != 1 || !strings.EqualFold(scheme, "Bearer") || !b64token(token) {
		if h.breaks[MalformedServed] {
			return &grant{scope: ScopeTools + " " + ScopeWrite}, 0
		}
		if h.breaks[MalformedBadRequest] || h.breaks[MalformedBareBadRequest] || h.breaks[InvalidRequestUnauthorized] {
			return nil, http.StatusBadRequest
		}
		return nil, http.StatusUnauthorized
	}
	h.mu.Lock()
	g, known := h.tokens[token]
	if !known && h.breaks[TamperAccepted] {
		// Compares only the first half, as a server that checks a
		// token's prefix and not its signature would.
		for t, tg := range h.tokens {
			if len(t) == len(token) && t[:len(t)/2] == token[:len(token)/2] {
				g, known = tg, true
			}
		}
	}
	h.mu.Unlock()
	switch {
	case !known:
		if h.breaks[UnknownAccepted] {
			return &grant{scope: ScopeTools + " " + ScopeWrite}, 0
		}
		return nil, http.StatusUnauthorized
	case g.expired && !h.breaks[ExpiredAccepted] && !h.breaks[ExpiredTokenLive]:
		return nil, http.StatusUnauthorized
	case g.resource != h.Endpoint() && !h.breaks[AudienceIgnored]:
		return nil, http.StatusUnauthorized
	case h.breaks[ValidRefused]:
		return nil, http.StatusUnauthorized
	}
	return &g, 0
}

// subject is the user a request's grant is for; "" for anonymous requests
// and every token but MintFor's.
func subject(g *grant) string {
	if g == nil {
		return ""
	}
	return g.subject
}

// malformed says whether a request's Authorization header is no Bearer
// token in RFC 6750 2.1's syntax.
func malformed(r *http.Request) bool {
	v, present := r.Header["Authorization"]
	if !present {
		return false
	}
	scheme, token, _ := strings.Cut(v[0], " ")
	return len(v) != 1 || !strings.EqualFold(scheme, "Bearer") || !b64token(strings.TrimSpace(token))
}

// challenge answers 401 (or 400 for a malformed token, under
// MalformedBadRequest) with RFC 6750's Bearer challenge, naming the metadata
// (RFC 9728 5.1) and the scope a client should ask for, and the error when a
// token was presented (RFC 6750 3), none when not (OAuth 2.1 5.3.2).
func (h *Host) challenge(w http.ResponseWriter, status int, presented bool) {
	var params []string
	if presented != h.breaks[ErrorWithoutToken] {
		code := "invalid_token"
		if status == http.StatusBadRequest {
			code = "invalid_request"
		}
		if !h.breaks[InvalidTokenUnnamed] {
			params = append(params, fmt.Sprintf(`error=%q`, code))
		}
		if h.breaks[ErrorTextOutsideCharset] {
			params = append(params, `error_description="the token \"given\" is unknown: é"`)
		}
	}
	if !h.breaks[ChallengeWithoutScope] {
		params = append(params, fmt.Sprintf(`scope=%q`, strings.Join(h.scopes(), " ")))
		if h.breaks[ChallengeRepeatsAttribute] {
			params = append(params, fmt.Sprintf(`scope=%q`, ScopeTools))
		}
	}
	if !h.breaks[MetadataUndiscoverable] {
		params = append(params, fmt.Sprintf(`resource_metadata=%q`, h.rsURL+h.metadataPath()))
	}
	switch {
	case h.breaks[ChallengeMissing], h.breaks[MalformedBareBadRequest] && status == http.StatusBadRequest:
	case h.breaks[ChallengeWithoutParams]:
		w.Header().Set("WWW-Authenticate", "Bearer")
	default:
		w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	}
	if status == http.StatusBadRequest && h.breaks[InvalidRequestUnauthorized] {
		status = http.StatusUnauthorized
	}
	writeJSON(w, status, map[string]any{"error": "invalid_token"})
}

// insufficientScope answers 403 with the insufficient_scope challenge naming
// scope (authorization 11.1.1), or 401 under ScopeErrorUnauthorized.
func (h *Host) insufficientScope(w http.ResponseWriter, scope string) {
	c := `Bearer error="insufficient_scope"`
	if !h.breaks[ScopeChallengeBare] {
		c += fmt.Sprintf(`, scope=%q`, scope)
	}
	c += fmt.Sprintf(`, resource_metadata=%q`, h.rsURL+h.metadataPath())
	w.Header().Set("WWW-Authenticate", c)
	status := http.StatusForbidden
	if h.breaks[ScopeErrorUnauthorized] {
		status = http.StatusUnauthorized
	}
	writeJSON(w, status, map[string]any{"error": "insufficient_scope"})
}

func hasScope(scopes, want string) bool {
	for _, s := range strings.Fields(scopes) {
		if s == want {
			return true
		}
	}
	return false
}

// b64token is RFC 6750 2.1's token syntax.
func b64token(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for _, c := range body {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-._~+/", c)) {
			return false
		}
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeSSE answers a request with one event carrying its response.
func writeSSE(w http.ResponseWriter, id json.RawMessage, result any) {
	data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprintf(w, "event: message\ndata: %s\n\n", data)
}
