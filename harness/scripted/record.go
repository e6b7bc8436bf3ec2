// Package scripted holds the servers the client half of a pack plays against
// a real client: per scenario, an MCP server and its authorization server
// built from the harness's fakes (fakeauthz for the mcp-authorization pack,
// fakehost for the source document), compliant or departing in the one way
// the scenario selects (a Variant), recording every request the client sends
// so that the scenario's judgements read them afterwards.
package scripted

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// maxBody bounds what is kept of one request or response body.
const maxBody = 64 << 10

// Request is one HTTP request a client sent, with the answer it got.
type Request struct {
	// Seq orders the requests as they arrived.
	Seq int
	// Server names the scripted server it reached ("first", "second");
	// Origin which of its origins ("mcp", "as").
	Server, Origin string
	Method         string
	// URL is the request's absolute URL, query included.
	URL    *url.URL
	Header http.Header
	Body   []byte
	// Form is the body decoded, when it is a form.
	Form url.Values
	At   time.Time
	// Status, RespHeader and RespBody are the answer.
	Status     int
	RespHeader http.Header
	RespBody   []byte
}

// Log is every request the servers of one scenario received, in order.
type Log struct {
	// Watch, when set, is given each request as it is logged, once
	// answered: a person following the run sees it unfold.
	Watch func(Request)

	mu   sync.Mutex
	next int
	reqs []Request
}

// Requests returns the requests answered so far, in the order they arrived.
func (l *Log) Requests() []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]Request(nil), l.reqs...)
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// arrived numbers a request as it arrives.
func (l *Log) arrived() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next++
	return l.next
}

func (l *Log) add(r Request) {
	l.mu.Lock()
	l.reqs = append(l.reqs, r)
	l.mu.Unlock()
	if l.Watch != nil {
		l.Watch(r)
	}
}

// Adjust may change an answer before it is sent: its header in place, its
// body by returning another. It runs once the fake has answered in full.
type Adjust func(r *http.Request, status int, header http.Header, body []byte) []byte

// held is a ResponseWriter that keeps the fake's whole answer, so that a
// scripted departure can change it (or act on it, as approving a user code
// it issued) before the client sees any of it. The fakes answer each request
// in one piece, so nothing streams through it.
type held struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (h *held) Header() http.Header { return h.header }

func (h *held) WriteHeader(status int) {
	if h.status == 0 {
		h.status = status
	}
}

func (h *held) Write(p []byte) (int, error) {
	if h.status == 0 {
		h.status = http.StatusOK
	}
	return h.body.Write(p)
}

// record serves r with next, lets adjust change the answer, logs the
// exchange and sends the answer.
func record(log *Log, server, origin string, r *http.Request, w http.ResponseWriter, next http.Handler, adjust Adjust) {
	seq := log.arrived()
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
	r.Body = io.NopCloser(bytes.NewReader(body))
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	rec := Request{Seq: seq, Server: server, Origin: origin, Method: r.Method, URL: &u, Header: r.Header.Clone(), Body: body, At: time.Now()}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		rec.Form, _ = url.ParseQuery(string(body))
	}
	h := &held{header: http.Header{}}
	next.ServeHTTP(h, r)
	if h.status == 0 {
		h.status = http.StatusOK
	}
	out := h.body.Bytes()
	if adjust != nil {
		out = adjust(r, h.status, h.header, out)
	}
	// Logged before it is sent: a client that exits on reading the answer
	// must find its request in the log when the scenario judges it.
	rec.Status, rec.RespHeader = h.status, h.header.Clone()
	rec.RespBody = out[:min(len(out), maxBody)]
	log.add(rec)
	for k, v := range h.header {
		w.Header()[k] = v
	}
	if len(out) != h.body.Len() {
		w.Header().Del("Content-Length")
	}
	w.WriteHeader(h.status)
	_, _ = w.Write(out)
}
