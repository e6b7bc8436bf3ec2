package fakehost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/fakeprotocol"
)

// request is a JSON-RPC 2.0 request or notification (no id).
type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// rpcError is the error member of a JSON-RPC response.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Tool names. The source names the path tools (section 1) but not the
// content tools; these are the names the default profile expects.
const (
	toolList  = "afs_list"
	toolStat  = "afs_stat"
	toolRead  = "afs_read"
	toolWrite = "afs_write"
)

var contentTools = []string{"search_content", "list_content", "get_content"}

// anonymousMethods are the anonymous allowlist's methods (source 5.3).
var anonymousMethods = []string{"initialize", "tools/list", "resources/list", "prompts/list"}

// anonymousTools are the tools/call names on the anonymous allowlist; which
// they are is not shown (source 5), so this host lets the path tools that only
// look through, and the Other host only afs_read.
func (h *Host) anonymousTools() []string {
	if h.opts.Other {
		return []string{toolRead}
	}
	return []string{toolList, toolStat, toolRead}
}

// caller is who gate 2 found: anonymous, or the owner.
type caller struct{ owner bool }

// cause is why a call was refused at gate 1 or 2 (source 7.2's table).
type cause string

const (
	causePrivileged cause = "anonymous call to a privileged tool"
	causeMethod     cause = "method not on the anonymous allowlist"
	causeCredential cause = "credential rejected"
)

const maxRequest = 1 << 20

// serveMCP decides gates 1 and 2 before anything looks at the tool name
// (source 5.4 and 5.6), then the session, then dispatches.
func (h *Host) serveMCP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequest))
	if err != nil {
		http.Error(w, "cannot read the request", http.StatusBadRequest)
		return
	}
	if h.isBatch(body) {
		h.serveBatch(w, r, body)
		return
	}
	var req request
	parsed := json.Unmarshal(body, &req) == nil && req.Method != ""
	var tool struct {
		Name string `json:"name"`
	}
	if req.Method == "tools/call" {
		_ = json.Unmarshal(req.Params, &tool)
		if h.broken(GateReadsFirstName) {
			tool.Name = firstName(req.Params)
		}
	}

	who, refused := h.gates(r, req, tool.Name, parsed)
	if refused == causeCredential && req.Method == "tools/call" && h.broken(RejectedCredentialReachesPolicy) {
		var p struct {
			Arguments struct {
				Path string `json:"path"`
			} `json:"arguments"`
		}
		_ = json.Unmarshal(req.Params, &p)
		if m := mountFor(path.Clean("/" + p.Arguments.Path)); m == nil || !h.opened(m, operations[tool.Name]) {
			refused = ""
		}
	}
	if refused != "" {
		h.unauthorized(w, r, req.ID, refused)
		return
	}
	if !parsed {
		writeJSON(w, http.StatusBadRequest, response(nil, nil, &rpcError{-32700, "parse error"}))
		return
	}
	if refusal := h.protocol(r, req); refusal != nil {
		writeJSON(w, http.StatusBadRequest, refusal.Body(req.ID))
		return
	}
	if !h.session(w, r, req) {
		return
	}
	if req.ID == nil {
		// A notification is accepted without a body (MCP transport).
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if req.Method == "tools/list" && h.broken(ToolsListFails) {
		writeJSON(w, http.StatusInternalServerError, response(req.ID, nil, &rpcError{-32603, "internal error"}))
		return
	}
	if req.Method == "tools/call" && !h.known(tool.Name) && h.broken(UnknownToolNotFound) {
		writeJSON(w, http.StatusNotFound, response(req.ID, nil, &rpcError{-32602, "unknown tool " + tool.Name}))
		return
	}
	if req.Method == "tools/call" && tool.Name == toolStat && h.broken(ListedStatAnswers404) {
		writeJSON(w, http.StatusNotFound, response(req.ID, nil, &rpcError{-32602, "no such tool " + tool.Name}))
		return
	}
	result, rerr := h.dispatch(req, who)
	if m, ok := result.(map[string]any); ok {
		if strings.HasSuffix(req.Method, "/list") {
			m = fakeprotocol.CompleteList(r, m)
		}
		result = fakeprotocol.Complete(r, m)
	}
	h.reply(w, response(req.ID, result, rerr))
}

// gates applies gate 1 (method allowlist) to anonymous callers and gate 2
// (credential) to callers that sent an Authorization header, and returns why
// the call is refused, or "".
func (h *Host) gates(r *http.Request, req request, tool string, parsed bool) (caller, cause) {
	header, sent := r.Header["Authorization"]
	if sent && h.broken(MalformedCredentialAnonymous) {
		if _, tok := bearer(header[0]); tok == "" {
			sent = false
		}
	}
	if sent && h.broken(EmptyHeaderAnonymous) && len(header) == 1 && strings.TrimSpace(header[0]) == "" {
		sent = false
	}
	if !sent && h.broken(QueryCredentialAccepted) && r.URL.Query().Get("access_token") == h.credential {
		return caller{owner: true}, ""
	}
	if sent {
		if len(header) != 1 || !h.accepts(header[0]) {
			return caller{}, causeCredential
		}
		return caller{owner: true}, ""
	}
	switch {
	case !parsed:
		// Source 5.3: a body with no readable method names none of the allowed ones.
		return caller{}, causeMethod
	case req.Method == "tools/call":
		if tool == toolList && h.broken(ListRefused) {
			return caller{}, causeMethod
		}
		if slices.Contains(h.anonymousTools(), tool) || h.broken(PathToolsUnknown) {
			return caller{}, ""
		}
		if tool == toolWrite || (h.opts.Other && h.known(tool)) {
			if h.broken(AnonymousPrivilegedReachesTool) {
				return caller{}, ""
			}
			return caller{}, causePrivileged
		}
		// Source 5.4 and 5.5: an unknown name is refused like a privileged
		// one, before any lookup; these breaks look it up first.
		if !h.known(tool) && (h.broken(UnknownToolNotFound) || h.broken(UnknownToolAnswered)) {
			return caller{}, ""
		}
		return caller{}, causeMethod
	case req.Method == "prompts/list" && h.broken(PromptsListRefused),
		req.Method == "initialize" && h.broken(InitializeRefused),
		req.Method == "resources/list" && h.broken(ResourcesListRefused):
		return caller{}, causeMethod
	case req.Method == "ping" && h.broken(PingAllowed):
		return caller{}, ""
	case slices.Contains(anonymousMethods, req.Method):
		return caller{}, ""
	case h.broken(OffAllowlistAllowed):
		return caller{}, ""
	}
	return caller{}, causeMethod
}

// bearer splits an Authorization value into its scheme and token.
func bearer(v string) (scheme, tok string) {
	scheme, tok, _ = strings.Cut(strings.TrimSpace(v), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return scheme, ""
	}
	return scheme, strings.TrimSpace(tok)
}

// accepts is gate 2: only this instance's credential (source 5.2).
func (h *Host) accepts(v string) bool {
	_, tok := bearer(v)
	switch {
	case tok == "":
		return false
	case tok == h.credential:
		return true
	case tok == h.peer:
		return h.broken(PeerCredentialAccepted) || h.broken(UnknownCredentialAccepted)
	}
	if valid, ok := h.issuedCredential(tok); ok {
		return valid == nil || valid()
	}
	return h.broken(UnknownCredentialAccepted)
}

// unauthorized writes the transport 401 of source 7.2: Bearer challenge with
// resource_metadata, body {"error":"Unauthorized"}, the same for every cause.
func (h *Host) unauthorized(w http.ResponseWriter, r *http.Request, id json.RawMessage, why cause) {
	metadata := baseURL(r) + "/.well-known/oauth-protected-resource"
	// RFC 6750 section 3.1: a rejected token may be named in the challenge;
	// the source fixes only the scheme and resource_metadata, so the header
	// differs by cause while the body does not.
	extra := ""
	if h.broken(ChallengeRealmRepeated) {
		extra = `, realm="fake"`
	}
	if why == causeCredential {
		extra += `, error="invalid_token"`
	}
	switch {
	case h.broken(ChallengeMissing):
	case h.broken(ChallengeWithoutResourceMetadata):
		w.Header().Set("WWW-Authenticate", `Bearer realm="fake \"host\""`+extra)
	case h.broken(ChallengeWrongResourceMetadata):
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="fake \"host\""%s, resource_metadata="%s/.well-known/oauth-authorization-server"`, extra, baseURL(r)))
	default:
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="fake \"host\""%s, resource_metadata="%s"`, extra, metadata))
	}
	body := map[string]any{"error": "Unauthorized"}
	switch {
	case h.broken(BodyNotUnauthorized):
		body["error"] = "invalid_token"
	case h.broken(BodyDiffersByCause) && why != causePrivileged:
		body["error_description"] = string(why)
	case h.broken(RefusalCarriesResult):
		body = response(id, toolResult(true, "Unauthorized", nil), nil)
	}
	raw, _ := json.Marshal(body)
	if h.broken(BodyNotJSON) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write(raw)
}

// baseURL is the base the client reached this host at; a host behind a
// proxy would need configuring, a fake one does not.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// session applies the Sessions mode after the gates, so that a caller the
// gates refuse always sees the 401 of source 7.2. It reports whether the
// call may go on.
func (h *Host) session(w http.ResponseWriter, r *http.Request, req request) bool {
	if h.opts.Mode != Sessions {
		return true
	}
	if req.Method == "initialize" {
		id := token()
		h.mu.Lock()
		h.sessions[id] = true
		h.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", id)
		return true
	}
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		writeJSON(w, http.StatusBadRequest, response(nil, nil, &rpcError{-32600, "Bad Request: no Mcp-Session-Id"}))
		return false
	}
	h.mu.Lock()
	known := h.sessions[id]
	h.mu.Unlock()
	if !known {
		writeJSON(w, http.StatusNotFound, response(nil, nil, &rpcError{-32001, "session not found"}))
		return false
	}
	return true
}

// dispatch answers a request that passed the gates.
func (h *Host) dispatch(req request, who caller) (any, *rpcError) {
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		if p.ProtocolVersion == "" {
			p.ProtocolVersion = "2025-06-18"
		}
		return map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}, "resources": map[string]any{}, "prompts": map[string]any{}},
			"serverInfo":      map[string]any{"name": "fakehost", "version": "0"},
		}, nil
	case "tools/list":
		return map[string]any{"tools": h.tools(who)}, nil
	case "ping":
		return map[string]any{}, nil
	case "server/discover":
		return fakeprotocol.Discover("fakehost"), nil
	case "resources/list":
		return map[string]any{"resources": []any{}}, nil
	case "prompts/list":
		return map[string]any{"prompts": []any{}}, nil
	case "logging/setLevel":
		return map[string]any{}, nil
	case "tools/call":
		var p struct {
			Name      string `json:"name"`
			Arguments struct {
				Path    *string `json:"path"`
				Content string  `json:"content"`
			} `json:"arguments"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, &rpcError{-32602, "invalid params"}
		}
		if !h.known(p.Name) && h.broken(PathToolsUnknown) {
			// What a general MCP server answers for a name it lacks.
			return toolResult(true, "Tool "+p.Name+" not found", nil), nil
		}
		if !h.known(p.Name) {
			return nil, &rpcError{-32602, "unknown tool " + p.Name}
		}
		if slices.Contains(contentTools, p.Name) {
			return toolResult(false, "no content matches", nil), nil
		}
		if p.Arguments.Path == nil {
			return nil, &rpcError{-32602, "arguments.path is required"}
		}
		return h.call(p.Name, *p.Arguments.Path, p.Arguments.Content, who), nil
	}
	return nil, &rpcError{-32601, "method not found: " + req.Method}
}

// tools is the tools/list result: content tools only when collections are
// declared (source section 1). The Other host shows an anonymous caller only
// the tools it may call.
func (h *Host) tools(who caller) []any {
	schema := func(props ...string) map[string]any {
		p := map[string]any{}
		for _, name := range props {
			p[name] = map[string]any{"type": "string"}
		}
		return map[string]any{"type": "object", "properties": p, "required": props}
	}
	all := []map[string]any{
		{"name": toolList, "description": "Children of a directory.", "inputSchema": schema("path")},
		{"name": toolStat, "description": "Metadata of a path, with its provider's capabilities.", "inputSchema": schema("path")},
		{"name": toolRead, "description": "Contents of a file.", "inputSchema": schema("path")},
		{"name": toolWrite, "description": "Replace a file's contents.", "inputSchema": schema("path", "content")},
	}
	if h.broken(PathToolsUnknown) {
		all = []map[string]any{{"name": "echo", "description": "Echoes its input.", "inputSchema": schema("message")}}
	}
	if h.collections() && !h.broken(ContentToolsMissing) {
		for _, name := range contentTools {
			all = append(all, map[string]any{"name": name, "description": "Content collections.", "inputSchema": schema()})
		}
	}
	out := []any{}
	for _, t := range all {
		name := t["name"].(string)
		if h.opts.Other && !who.owner && !slices.Contains(h.anonymousTools(), name) && !slices.Contains(contentTools, name) {
			continue
		}
		out = append(out, t)
	}
	return out
}

func (h *Host) collections() bool {
	return h.opts.Collections || h.broken(ContentToolsWithoutCollections)
}

// known is the tool-name lookup that only happens after the gates.
func (h *Host) known(name string) bool {
	if h.broken(PathToolsUnknown) {
		return false
	}
	return slices.Contains([]string{toolList, toolStat, toolRead, toolWrite}, name) ||
		(h.collections() && slices.Contains(contentTools, name))
}

// response builds a JSON-RPC 2.0 response; a nil id is JSON null.
func response(id json.RawMessage, result any, rerr *rpcError) map[string]any {
	if id == nil {
		id = json.RawMessage("null")
	}
	m := map[string]any{"jsonrpc": "2.0", "id": id}
	if rerr != nil {
		m["error"] = rerr
	} else {
		m["result"] = result
	}
	return m
}

// reply sends a JSON-RPC response in the host's mode. SSE sends a log
// notification first, as a streaming host may, and spreads the response over
// several data lines, which the event stream format joins.
func (h *Host) reply(w http.ResponseWriter, msg map[string]any) {
	if h.opts.Mode != SSE {
		writeJSON(w, http.StatusOK, msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	note, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "method": "notifications/message",
		"params": map[string]any{"level": "info", "logger": "fakehost", "data": "working"},
	})
	resp, _ := json.MarshalIndent(msg, "", " ")
	var b bytes.Buffer
	fmt.Fprintf(&b, ": stream opened\n\nevent: message\ndata: %s\n\nevent: message\n", note)
	for _, line := range strings.Split(string(resp), "\n") {
		fmt.Fprintf(&b, "data: %s\n", line)
	}
	b.WriteString("\n")
	_, _ = w.Write(b.Bytes())
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	raw, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(raw)
}

// serveDiscovery serves /.well-known/mcp.json (source 1 and 7.5 step 1); its
// body is not shown, so it only names the endpoint.
func (h *Host) serveDiscovery(w http.ResponseWriter, r *http.Request) {
	if h.broken(DiscoveryMissing) {
		http.NotFound(w, r)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": "fakehost", "url": baseURL(r) + "/mcp"})
}

// firstName returns the first "name" member of a params object, where
// encoding/json keeps the last: a gate that reads one and a dispatcher that
// reads the other (GateReadsFirstName).
func firstName(params json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(params))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ""
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return ""
		}
		var name string
		if key == "name" && json.Unmarshal(v, &name) == nil {
			return name
		}
	}
	return ""
}
