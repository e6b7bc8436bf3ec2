// Package clock gives the reference host its notion of "now". Every time rule
// of the source document (the five-minute device-code window of section 3, the
// seven-day unused-registration lifetime of section 8) reads the time through
// an injected clock, so the conformance harness can test each edge exactly
// with a Manual clock instead of waiting in real time.
//
// Consumers declare the interface they need themselves:
//
//	type Clock interface{ Now() time.Time }
package clock

import (
	"sync"
	"time"
)

// System is the wall clock, used by a host serving real clients.
type System struct{}

// Now returns the current wall-clock time.
func (System) Now() time.Time { return time.Now() }

// Manual is a clock that moves only when told to. The harness hands one to
// an in-process host to step across time windows. It is safe for concurrent
// use: handlers read it while a test advances it.
type Manual struct {
	mu  sync.Mutex
	now time.Time
}

// NewManual returns a Manual clock reading t.
func NewManual(t time.Time) *Manual { return &Manual{now: t} }

// Now returns the clock's current reading.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Advance moves the clock forward by d (backward if d is negative).
func (m *Manual) Advance(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = m.now.Add(d)
}

// Set moves the clock to t.
func (m *Manual) Set(t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = t
}
