package budget

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/conform-mcp/conform/impl/caller"
)

// Bound gives every request to next a Budget of l (NewContext), with the
// anonymous timeout when the gate found no credential (package caller). When the
// request exceeds it, whatever next answers is dropped and the request is
// answered with the Exceeded error alone: HTTP 400 or 503 and a JSON-RPC
// error without id (JSON-RPC 2.0 section 5: the id of a batch's answer
// cannot be one id), so a client reads a clear refusal, never a part of
// its replies. JSON replies are written after the last call ends, so
// whether the budget held is known before the first byte is written.
//
// All requests share one bound on the reply bytes in flight,
// l.InFlightBytes (pool.go): what a request holds of it is given back once
// its answer is written.
func Bound(next http.Handler, l Limits) http.Handler {
	var shared *pool
	if l.InFlightBytes > 0 {
		shared = newPool(l.InFlightBytes)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := New(l.forCaller(caller.FromContext(r.Context()).Anonymous()), time.Now())
		b.pool = shared
		if shared != nil {
			defer b.release()
		}
		gw := &guardedWriter{ResponseWriter: w, budget: b}
		next.ServeHTTP(gw, r.WithContext(NewContext(r.Context(), b)))
		if e := b.exceeded(); e != nil && (gw.dropped || !gw.decided) {
			writeExceeded(w, e)
		}
	})
}

// guardedWriter passes next's answer through while the budget holds, and
// drops it once it does not.
type guardedWriter struct {
	http.ResponseWriter
	budget  *Budget
	decided bool
	dropped bool
}

// pass decides, at the first header or byte next writes, whether its answer
// goes out.
func (w *guardedWriter) pass() bool {
	if !w.decided {
		w.decided = true
		w.dropped = w.budget.exceeded() != nil
	}
	return !w.dropped
}

func (w *guardedWriter) WriteHeader(status int) {
	if w.pass() {
		w.ResponseWriter.WriteHeader(status)
	}
}

func (w *guardedWriter) Write(p []byte) (int, error) {
	if !w.pass() {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Flush is found by http.ResponseController before Unwrap: a flush would
// send the header, so it is decided like a write.
func (w *guardedWriter) Flush() {
	if w.pass() {
		_ = http.NewResponseController(w.ResponseWriter).Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's other
// controls (deadlines).
func (w *guardedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// writeExceeded answers with e, replacing the headers next set for the
// answer it no longer gives.
func writeExceeded(w http.ResponseWriter, e *Exceeded) {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": e.Code, "message": e.Message},
	})
	h := w.Header()
	clear(h)
	h.Set("Content-Type", "application/json")
	if e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(int(math.Ceil(e.RetryAfter.Seconds()))))
	}
	w.WriteHeader(e.Status)
	_, _ = w.Write(body)
}
