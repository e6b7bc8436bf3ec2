package steps

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/harness/wire"
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

// throttled says whether a reply is plainly a rate limit at work. Source 8
// does not show the throttled response; 429 (RFC 6585 section 4), or a 4xx or
// 503 with Retry-After (RFC 9110 section 10.2.3), are the usual signs.
func throttled(r *oauthclient.Reply) bool {
	retry := r.Header.Get("Retry-After") != ""
	return r.Status == http.StatusTooManyRequests || (r.Status >= 400 && r.Status < 500 && retry) ||
		(r.Status == http.StatusServiceUnavailable && retry)
}

// skipThrottled stops a scenario whose request the host throttled: a rate
// limit is the host's right (source 7.3 and 8 for registration; RFC 6585
// section 4), so the scenario is not run, never failed. what names the
// request ("registration"); remedy, when set, says what else avoids it.
func (st *State) skipThrottled(r *oauthclient.Reply, what, remedy string) error {
	reason := fmt.Sprintf("%s throttled by the host's rate limit: HTTP %d", what, r.Status)
	if ra := r.Header.Get("Retry-After"); ra != "" {
		reason += ", Retry-After " + ra
	}
	reason += "; run again once the limit has refilled"
	if remedy != "" {
		reason += ", or " + remedy
	}
	return st.skip(reason)
}

// describeOAuth says in a few words what an OAuth reply was, for "actual".
func describeOAuth(r *oauthclient.Reply) string {
	if r == nil {
		return "no reply"
	}
	return wire.Describe(r.Answer())
}
