package oauth

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// logLimit bounds how often one kind of log line is written. A failed
// sign-in is a line of about 100 bytes that any stranger can cause; one
// address wrote 42,864 of them in 10 seconds (issue 26 item 3), and nothing
// bounded what they could add to the disk. Past the limit, lines are
// counted, not written, and the next line written says how many were left
// out.
type logLimit struct {
	mu      sync.Mutex
	lim     *rate.Limiter
	skipped int
}

// newLogLimit allows burst lines at once and one more every interval.
func newLogLimit(burst int, every time.Duration) *logLimit {
	return &logLimit{lim: rate.NewLimiter(rate.Every(every), burst)}
}

// allow reports whether a line may be written at now and, when it may,
// how many were left out since the last one written.
func (l *logLimit) allow(now time.Time) (ok bool, skipped int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.lim.AllowN(now, 1) {
		l.skipped++
		return false, 0
	}
	skipped, l.skipped = l.skipped, 0
	return true, skipped
}
