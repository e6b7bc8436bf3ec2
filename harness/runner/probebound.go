package runner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/conform-mcp/conform/harness/target"
)

// probeBound bounds each pre-flight request by the timeout of the target's
// client, the one --timeout sets for every request of the run, so that the
// pre-flight gives a slow target exactly the time the help promises, and a
// target that never answers is named once rather than by every scenario.
func probeBound(t *target.Target) time.Duration {
	if t.HTTP != nil && t.HTTP.Timeout > 0 {
		return t.HTTP.Timeout
	}
	return target.DefaultTimeout
}

// unanswered says why what (a target, a peer) gave the pre-flight no
// answer: one that accepted the request but did not answer within bound is
// not unreachable, and --timeout is what gives it longer.
func unanswered(what string, err error, bound time.Duration) string {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Sprintf("%s did not answer within %s (--timeout sets how long a request may take): %v", what, bound, err)
	}
	return fmt.Sprintf("%s is unreachable: %v", what, err)
}
