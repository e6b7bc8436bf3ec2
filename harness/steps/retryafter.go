package steps

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/harness/wire"
)

// obeyRetryAfter sends a request to the authorization server through
// oauthclient.ObeyRetryAfter, telling a person about the wait. A second
// run right after a first then finds the per-address allowances
// (registration, source 7.3 and 8; token requests) as a host that refills
// them quickly has them, instead of losing the scenarios that spend them.
// what names the request ("registration").
func (st *State) obeyRetryAfter(ctx context.Context, what string, send func() (*oauthclient.Reply, error)) (*oauthclient.Reply, error) {
	return oauthclient.ObeyRetryAfter(ctx, func(ctx context.Context, wait time.Duration) error {
		if st.Announce != nil {
			st.Announce("waiting out the Retry-After of a throttled "+what, wait)
		}
		return target.Sleep(ctx, wait)
	}, send)
}

// skipThrottled stops a scenario whose request the host throttled: a rate
// limit is the host's right (source 7.3 and 8 for registration; RFC 6585
// section 4), so the scenario is not run, never failed. what names the
// request ("registration"); remedy, when set, says what else avoids it.
// The error is also oauthclient.ErrThrottled, for a caller that tries again
// later what a limit stopped.
func (st *State) skipThrottled(r *oauthclient.Reply, what, remedy string) error {
	reason := fmt.Sprintf("%s throttled by the host's rate limit: HTTP %d", what, r.Status)
	if ra := r.Header.Get("Retry-After"); ra != "" {
		reason += ", Retry-After " + ra
	}
	reason += "; run again once the limit has refilled"
	if remedy != "" {
		reason += ", or " + remedy
	}
	return errors.Join(st.skip(reason), oauthclient.ErrThrottled)
}

// describeOAuth says in a few words what an OAuth reply was, for "actual".
func describeOAuth(r *oauthclient.Reply) string {
	if r == nil {
		return "no reply"
	}
	return wire.Describe(r.Answer())
}
