package oauthclient

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxRetryAfter is the longest wait a throttled request is sent again
// after. A server that asks for more (minutes, as a limit meant for abuse
// does) is answered by the caller, which then has what it needed not run.
const maxRetryAfter = 10 * time.Second

// ErrThrottled is what a request the authorization server still throttles
// after a short Retry-After ends with (Obtain wraps it): a rate limit, no
// word on the client or the request (RFC 6585 section 4).
var ErrThrottled = errors.New("throttled by the authorization server's rate limit")

// Sleep waits d, or less when ctx ends first, and says why it stopped
// early (target.Sleep, or a test's clock).
type Sleep func(ctx context.Context, d time.Duration) error

// ObeyRetryAfter sends a request and, when the server throttles it with a
// Retry-After of at most maxRetryAfter, waits that long through sleep and
// sends it once more, as RFC 9110 section 10.2.3 (and RFC 6585 section 4
// for 429) asks of a client. It tries only once more: a reply still
// throttled is returned for the caller to classify. A nil sleep sends the
// request once.
func ObeyRetryAfter(ctx context.Context, sleep Sleep, send func() (*Reply, error)) (*Reply, error) {
	r, err := send()
	if err != nil || sleep == nil || !r.Throttled() {
		return r, err
	}
	wait, ok := retryAfter(r.Header.Get("Retry-After"))
	if !ok || wait > maxRetryAfter {
		return r, nil
	}
	if err := sleep(ctx, wait); err != nil {
		return r, nil
	}
	return send()
}

// retryAfter reads Retry-After's delay-seconds form (RFC 9110 section
// 10.2.3); the HTTP-date form, never short in practice, is not waited for.
func retryAfter(v string) (time.Duration, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0, false
	}
	return time.Duration(n) * time.Second, true
}

// Throttled says whether a reply is plainly a rate limit at work: 429
// (RFC 6585 section 4), or a 4xx or 503 with Retry-After (RFC 9110 section
// 10.2.3), the usual signs, since OAuth defines no throttled response of
// its own.
func (r *Reply) Throttled() bool {
	retry := r.Header.Get("Retry-After") != ""
	return r.Status == http.StatusTooManyRequests || (r.Status >= 400 && r.Status < 500 && retry) ||
		(r.Status == http.StatusServiceUnavailable && retry)
}
