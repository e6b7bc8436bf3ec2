// Package mcpclient is the harness's MCP client: JSON-RPC over the MCP
// streamable HTTP transport, spoken with plain net/http so that every status
// code, header and body the host sends reaches a scenario unchanged
// (PRODUCT.md section 7). It speaks MCP 2026-07-28 first (per-request _meta
// and headers, no handshake) and falls back to the earlier revisions as the
// transport's Backward Compatibility section tells a client to (revision.go);
// for those it does what the transport obliges (the initialize handshake,
// carrying the session, starting over when a session has ended). It judges
// nothing itself.
package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/conform-mcp/conform/harness/wire"
	"github.com/conform-mcp/conform/internal/buildinfo"
)

// Header names of the MCP streamable HTTP transport (MCP 2025-06-18,
// Transports, "Session Management" and "Protocol Version Header"; the
// version header is 2026-07-28's too).
const (
	// SessionHeader carries the session id the host issued in its answer to initialize.
	SessionHeader = "Mcp-Session-Id"
	// VersionHeader carries the negotiated protocol version on every request after initialize.
	VersionHeader = "MCP-Protocol-Version"
)

const (
	jsonType = "application/json"
	// acceptBoth is required on every POST: the server may answer with a
	// single JSON object or open an SSE stream (Transports, "Sending Messages
	// to the Server").
	acceptBoth = "application/json, text/event-stream"
	// maxBody bounds what is read of one response, so a host that streams
	// without end cannot exhaust the harness.
	maxBody = 8 << 20
)

// clientInfo names the harness in initialize, with the version conform
// --version gives: never the go command's placeholder "(devel)".
var clientInfo = map[string]string{"name": "conform", "version": buildinfo.Number()}

// Client talks to one MCP endpoint. With a server of an earlier revision it
// keeps one session per distinct Authorization value, because a session
// belongs to the caller that opened it. It is safe for concurrent use.
type Client struct {
	endpoint string
	hc       *http.Client
	nextID   atomic.Int64

	mu       sync.Mutex
	sessions map[string]*session
	// pinned is the one revision to speak, "" to negotiate.
	pinned string
	// era is what replies have shown of the server's revision; offer is the
	// version initialize offers once the server listed its own; chosen is the
	// version an earlier server chose in initialize.
	era           era
	offer, chosen string
}

// session is what the transport asks a client to remember between requests.
type session struct {
	mu       sync.Mutex
	opened   bool   // initialize was answered with a result
	notified bool   // notifications/initialized was sent after that
	id       string // Mcp-Session-Id; "" when the host is stateless
	version  string // protocol version the host chose in initialize
}

// state is what one request carries of its session, or, for a stateless
// request, the headers that stand in for it.
type state struct {
	id      string
	version string
	header  http.Header
}

// New returns a client for the MCP endpoint (e.g. "http://h:8080/mcp"). A nil
// hc means http.DefaultClient; timeouts come from hc and from each call's ctx.
func New(endpoint string, hc *http.Client) *Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{endpoint: endpoint, hc: hc, sessions: map[string]*session{}}
}

// EmptyAuthorization, given as auth, sends an Authorization header with an
// empty value: a header that is present but carries no credential, which is
// not the same as no header (source 7.2, "a header was sent but is
// malformed").
const EmptyAuthorization = "\x00empty"

// Call sends one JSON-RPC request (auth is the whole Authorization header
// value, "" for none, EmptyAuthorization for an empty one; params may be nil). It returns an error only when no
// HTTP response could be had (transport failure, context) or the harness
// itself failed; any HTTP status is a Reply.
//
// Before the first call other than initialize for an auth value, Call opens a
// session (initialize, then notifications/initialized). It sends the call even
// when that handshake was refused: the reply is always the call's own, and the
// handshake's exchanges come first in Reply.Exchanges.
func (c *Client) Call(ctx context.Context, auth, method string, params any) (*Reply, error) {
	if method == "initialize" {
		// The caller's own initialize starts a new session: it carries no
		// session id, and what the host answers becomes the session.
		body, want, err := c.request(method, params)()
		if err != nil {
			return nil, err
		}
		r, err := c.post(ctx, auth, jsonType, body, state{}, want)
		if err != nil {
			return nil, err
		}
		s := c.session(auth)
		s.mu.Lock()
		s.open(r)
		s.mu.Unlock()
		return r, nil
	}
	if c.speaksModern() {
		body, want, header, err := c.modernRequest(method, params)
		if err != nil {
			return nil, err
		}
		r, err := c.post(ctx, auth, jsonType, body, state{header: header}, want)
		if err != nil {
			return nil, err
		}
		if c.learn(r) == answered {
			return r, nil
		}
		legacy, err := c.exchange(ctx, auth, jsonType, c.request(method, params))
		if legacy != nil {
			legacy.Exchanges = append(r.Exchanges, legacy.Exchanges...)
		}
		return legacy, err
	}
	return c.exchange(ctx, auth, jsonType, c.request(method, params))
}

// Probe sends the lone request a server answers on its own, with no state
// before it, carrying extra headers (an Origin, say): server/discover in
// 2026-07-28, which servers MUST implement (changelog, "Major changes" 3),
// else initialize, which opens nothing here. It learns the revision as Call
// does.
func (c *Client) Probe(ctx context.Context, auth string, extra http.Header) (*Reply, error) {
	var first []wire.Exchange
	if c.speaksModern() {
		body, want, header, err := c.modernRequest("server/discover", nil)
		if err != nil {
			return nil, err
		}
		for k, v := range extra {
			header[k] = v
		}
		r, err := c.post(ctx, auth, jsonType, body, state{header: header}, want)
		if err != nil {
			return nil, err
		}
		if c.learn(r) == answered {
			return r, nil
		}
		first = r.Exchanges
	}
	body, want, err := c.request("initialize", c.initializeParams())()
	if err != nil {
		return nil, err
	}
	r, err := c.post(ctx, auth, jsonType, body, state{header: extra}, want)
	if err != nil {
		return nil, err
	}
	r.Exchanges = append(first, r.Exchanges...)
	return r, nil
}

// initializeParams are what the client says of itself in initialize.
func (c *Client) initializeParams() map[string]any {
	return map[string]any{
		"protocolVersion": c.offered(),
		"capabilities":    map[string]any{},
		"clientInfo":      clientInfo,
	}
}

// Send posts a raw body with the given Content-Type ("" sends none), for
// bad-input checks: malformed JSON, batches, wrong content types, huge bodies.
// To a 2026-07-28 server it adds the headers the body lets it mirror and
// the _meta of that revision to a request's params, leaving the rest of
// the body as it is; to an earlier one (or one whose revision no reply
// has shown yet) it does the session handshake like Call. Since the client
// cannot know the body's ids, Reply.Message is the first JSON-RPC response in
// the reply.
func (c *Client) Send(ctx context.Context, auth string, contentType string, body []byte) (*Reply, error) {
	if c.Revision() == "" && c.speaksModern() {
		// A raw body cannot tell the revision (a malformed one earns a 400
		// in every revision), so a request that can tell goes first: the
		// anonymous tools/list, which tool hosts answer (source 7.5 step 1).
		// Whatever it gets, the body below is the caller's.
		_, _ = c.Call(ctx, "", "tools/list", map[string]any{})
	}
	if c.Revision() == Modern {
		body = withMeta(body)
		return c.post(ctx, auth, contentType, body, state{header: mirrored(body)}, "")
	}
	return c.exchange(ctx, auth, contentType, func() ([]byte, string, error) { return body, "", nil })
}

// request returns a builder of a JSON-RPC request that takes its id when
// built, so that ids increase in the order requests go out, handshakes and
// retries included. It also returns the id as JSON text, to match the response.
func (c *Client) request(method string, params any) func() ([]byte, string, error) {
	return func() ([]byte, string, error) {
		id := c.nextID.Add(1)
		body, err := encode(&id, method, params)
		return body, strconv.FormatInt(id, 10), err
	}
}

// exchange sends one message within the auth value's session: handshake
// first if needed, then the message, then once more on a fresh session if the
// host says the session has ended. build makes the message's body and the id
// its response must carry ("" for any).
func (c *Client) exchange(ctx context.Context, auth, contentType string, build func() ([]byte, string, error)) (*Reply, error) {
	s := c.session(auth)
	var exs []wire.Exchange
	for attempt := 0; ; attempt++ {
		st, hs, err := c.handshake(ctx, auth, s)
		exs = append(exs, hs...)
		if err != nil {
			return nil, err
		}
		body, want, err := build()
		if err != nil {
			return nil, err
		}
		r, err := c.post(ctx, auth, contentType, body, st, want)
		if err != nil {
			return nil, err
		}
		exs = append(exs, r.Exchanges...)
		// Transports, "Session Management": a 404 to a request carrying a
		// session id means the session has ended, and the client MUST start
		// a new one with an initialize that carries none. Once is enough: a
		// host that ends every session has answered the call.
		if st.id == "" || r.Status != http.StatusNotFound || attempt > 0 {
			r.Exchanges = exs
			return r, nil
		}
		s.expire(st.id)
	}
}

// handshake opens the session for auth if it is not open (Lifecycle,
// "Initialization": initialize, then notifications/initialized),
// and returns what the next request must carry. A refused or failed handshake
// is not an error: the host's answer to the caller's own request is what the
// scenario judges, and the handshake is tried again before the next one.
// The error is the harness's own failure only.
func (c *Client) handshake(ctx context.Context, auth string, s *session) (state, []wire.Exchange, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var exs []wire.Exchange
	if !s.opened {
		body, want, err := c.request("initialize", c.initializeParams())()
		if err != nil {
			return state{}, exs, err
		}
		r, _ := c.post(ctx, auth, jsonType, body, state{}, want)
		exs = append(exs, r.Exchanges...)
		s.open(r)
		c.chose(s.version)
	}
	if s.opened && !s.notified {
		body, err := encode(nil, "notifications/initialized", nil)
		if err != nil {
			return state{}, exs, err
		}
		r, err := c.post(ctx, auth, jsonType, body, s.state(c.offered()), "")
		exs = append(exs, r.Exchanges...)
		s.notified = err == nil
	}
	return s.state(c.offered()), exs, nil
}

// session returns the session kept for auth, creating an empty one.
func (c *Client) session(auth string) *session {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sessions[auth]
	if s == nil {
		s = &session{}
		c.sessions[auth] = s
	}
	return s
}

// open records the host's answer to an initialize. Only a 2xx answer with a
// result opens a session; anything else leaves none. The caller holds s.mu.
func (s *session) open(r *Reply) {
	s.reset()
	if r.Status/100 != 2 || r.Message == nil || r.Message.Error != nil || len(r.Message.Result) == 0 {
		return
	}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	// An unreadable result leaves the version the client offered.
	_ = json.Unmarshal(r.Message.Result, &init)
	s.opened = true
	s.id = r.Header.Get(SessionHeader)
	s.version = init.ProtocolVersion
}

// expire forgets the session if it is still the one with id (another call may
// already have opened a new one).
func (s *session) expire(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opened && s.id == id {
		s.reset()
	}
}

// reset forgets the session. The caller holds s.mu.
func (s *session) reset() {
	s.opened, s.notified, s.id, s.version = false, false, "", ""
}

// state is what the next request carries. The version header goes on every
// request after initialize (Transports, "Protocol Version Header"); with no
// negotiated version the client names the one it offered. The caller holds
// s.mu.
func (s *session) state(offered string) state {
	v := s.version
	if v == "" {
		v = offered
	}
	return state{id: s.id, version: v}
}

// post makes one HTTP exchange. The Reply is never nil, so that even a
// transport failure leaves its exchange for the record; the error says the
// exchange had no response.
func (c *Client) post(ctx context.Context, auth, contentType string, body []byte, st state, want string) (*Reply, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return &Reply{}, fmt.Errorf("build request to %s: %w", c.endpoint, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", acceptBoth)
	switch auth {
	case "":
	case EmptyAuthorization:
		req.Header["Authorization"] = []string{""}
	default:
		req.Header.Set("Authorization", auth)
	}
	if st.id != "" {
		req.Header.Set(SessionHeader, st.id)
	}
	if st.version != "" {
		req.Header.Set(VersionHeader, st.version)
	}
	for k, v := range st.header {
		req.Header[k] = v
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return &Reply{Exchanges: []wire.Exchange{wire.Record(req, body, nil, nil, err)}}, err
	}
	defer resp.Body.Close()
	raw, msg := readReply(resp, want)
	return &Reply{
		Status:    resp.StatusCode,
		Header:    resp.Header,
		Body:      raw,
		Message:   msg,
		Exchanges: []wire.Exchange{wire.Record(req, body, resp, raw, nil)},
	}, nil
}

// encode builds a JSON-RPC 2.0 request, or a notification when id is nil.
func encode(id *int64, method string, params any) ([]byte, error) {
	body, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      *int64 `json:"id,omitempty"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{"2.0", id, method, params})
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", method, err)
	}
	return body, nil
}
