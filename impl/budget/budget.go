// Package budget bounds the work of one MCP request as a whole. Each tool
// call is bounded on its own (config limits), but a request may hold many
// calls: a 2025-03-26 batch of 64 reads of a file that encodes to six times
// its size answered 384 MB, and 64 searches took half a minute of CPU
// (issue 15 item 1). A Budget, carried in the request's context, lets the
// calls of one request run one at a time, and bounds together the bytes
// their replies encode to, the file bytes their searches read, and how long
// they run.
package budget

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Limits are what one request may take, all its calls together.
type Limits struct {
	// ReplyBytes bounds the JSON encoding of the tool results.
	ReplyBytes int64
	// ScanBytes bounds the file content searches read.
	ScanBytes int64
	// Timeout bounds how long the tool calls run, from the request's start.
	Timeout time.Duration
	// InFlightBytes bounds the reply bytes all requests hold at once
	// (pool.go); 0 does not bound.
	InFlightBytes int64
	// AnonymousTimeout, when shorter, bounds them instead for a request
	// without a credential. A search over 20,000 small files cost an
	// anonymous caller's request 1.76 CPU-s in 1.24 s (issue 26 item 6);
	// the calls of one request run one at a time, so their time bounds
	// their CPU, the garbage collector's share aside.
	AnonymousTimeout time.Duration
}

// forCaller is l as it bounds a request, anonymous or not.
func (l Limits) forCaller(anonymous bool) Limits {
	if anonymous && l.AnonymousTimeout > 0 && l.AnonymousTimeout < l.Timeout {
		l.Timeout = l.AnonymousTimeout
	}
	return l
}

// Exceeded is the error of a request that asked for more than its Limits.
// The whole request is then answered with it (Bound), never with a part of
// its replies.
type Exceeded struct {
	// Status is the HTTP status of the answer.
	Status int
	// Code and Message are the JSON-RPC error's (JSON-RPC 2.0 section 5.1).
	Code    int
	Message string
	// RetryAfter, when set, is sent as Retry-After (RFC 9110 section 10.2.3).
	RetryAfter time.Duration
}

func (e *Exceeded) Error() string { return e.Message }

// JSON-RPC 2.0 section 5.1 codes of the answers.
const (
	codeInvalidRequest = -32600
	codeInternalError  = -32603
)

// Budget is the account of one request. The methods of a nil Budget allow
// everything, so that code run outside a request needs no budget.
type Budget struct {
	limits   Limits
	deadline time.Time
	// turn is held by the call that runs: calls of one request take turns,
	// so that a request holds at most one call's working memory at a time.
	turn  chan struct{}
	reply atomic.Int64
	scan  atomic.Int64
	// pool is the host's in-flight bound, nil when none.
	pool *pool

	mu  sync.Mutex
	err *Exceeded
	// held is what the request holds of pool.
	held int64
}

// New returns the budget of a request that starts at now.
func New(l Limits, now time.Time) *Budget {
	return &Budget{limits: l, deadline: now.Add(l.Timeout), turn: make(chan struct{}, 1)}
}

type key struct{}

// NewContext returns ctx carrying b.
func NewContext(ctx context.Context, b *Budget) context.Context {
	return context.WithValue(ctx, key{}, b)
}

// FromContext returns the budget of the request ctx belongs to, or nil.
func FromContext(ctx context.Context) *Budget {
	b, _ := ctx.Value(key{}).(*Budget)
	return b
}

// Turn waits until no other call of the request runs, and returns ctx
// bounded by the request's deadline and the function that ends the turn.
// It fails once the budget is spent or the deadline has passed: the calls
// still waiting then do no work at all.
func (b *Budget) Turn(ctx context.Context) (context.Context, func(), error) {
	if b == nil {
		return ctx, func() {}, nil
	}
	ctx, cancel := context.WithDeadline(ctx, b.deadline)
	select {
	case b.turn <- struct{}{}:
	case <-ctx.Done():
		cancel()
		if err := b.Finish(); err != nil {
			return ctx, func() {}, err
		}
		// The request went away while the call waited.
		return ctx, func() {}, ctx.Err()
	}
	if err := b.Finish(); err != nil {
		<-b.turn
		cancel()
		return ctx, func() {}, err
	}
	return ctx, func() { <-b.turn; cancel() }, nil
}

// Finish is checked when a call ends: once the request's deadline has
// passed, the call may have been cut short, and the request is over time.
// It returns the first limit the request exceeded, or nil.
func (b *Budget) Finish() error {
	if b == nil {
		return nil
	}
	if !time.Now().Before(b.deadline) {
		return b.fail(&Exceeded{
			Status:  http.StatusServiceUnavailable,
			Code:    codeInternalError,
			Message: fmt.Sprintf("Internal error: the calls of this request ran longer than %s; send fewer calls per request", b.limits.Timeout),
			// A busy host runs out of time too: a 503 says when to come
			// back (RFC 9110 section 15.6.4), as the pool's refusal does.
			RetryAfter: poolRetry,
		})
	}
	return b.Err()
}

// Reply charges n bytes of encoded tool result.
func (b *Budget) Reply(n int64) error {
	if b == nil {
		return nil
	}
	if b.reply.Add(n) > b.limits.ReplyBytes {
		return b.fail(&Exceeded{
			Status:  http.StatusBadRequest,
			Code:    codeInvalidRequest,
			Message: fmt.Sprintf("Invalid Request: the replies to this request would exceed %d bytes; send fewer calls per request, or read in parts with offset and length", b.limits.ReplyBytes),
		})
	}
	return nil
}

// Scan charges n bytes of file content read by a search.
func (b *Budget) Scan(n int64) error {
	if b == nil {
		return nil
	}
	if b.scan.Add(n) > b.limits.ScanBytes {
		return b.fail(&Exceeded{
			Status:  http.StatusBadRequest,
			Code:    codeInvalidRequest,
			Message: fmt.Sprintf("Invalid Request: the searches of this request would read more than %d bytes of files; search a narrower path, or send fewer searches per request", b.limits.ScanBytes),
		})
	}
	return nil
}

// Err is the first limit the request exceeded, or nil.
func (b *Budget) Err() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil {
		return nil
	}
	return b.err
}

// exceeded is Err as its type.
func (b *Budget) exceeded() *Exceeded {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// fail records e unless a limit was exceeded before, and returns the first.
func (b *Budget) fail(e *Exceeded) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil {
		b.err = e
	}
	return b.err
}
