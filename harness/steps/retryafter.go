package steps

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/target"
)

// maxRetryAfter is the longest wait a throttled request is retried after.
// A host that asks for more (minutes, as a limit meant for abuse does) has
// the scenario not run instead, with its Retry-After quoted.
const maxRetryAfter = 10 * time.Second

// obeyRetryAfter sends a request and, when the host throttles it with a
// short Retry-After, sends it once more after that wait, as RFC 9110
// section 10.2.3 (and RFC 6585 section 4 for 429) asks of a client. A second
// run right after a first then finds the per-address registration allowance
// (source 7.3 and 8) as a host that refills it quickly has it, instead of
// losing the scenarios that register.
func (st *State) obeyRetryAfter(ctx context.Context, what string, send func() (*oauthclient.Reply, error)) (*oauthclient.Reply, error) {
	r, err := send()
	if err != nil || !throttled(r) {
		return r, err
	}
	wait, ok := retryAfter(r.Header.Get("Retry-After"))
	if !ok || wait > maxRetryAfter {
		return r, nil
	}
	if st.Announce != nil {
		st.Announce("waiting out the Retry-After of a throttled "+what, wait)
	}
	if err := target.Sleep(ctx, wait); err != nil {
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
