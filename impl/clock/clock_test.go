package clock_test

import (
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/clock"
)

// Both clocks must satisfy the interface consumers declare.
type nower interface{ Now() time.Time }

var (
	_ nower = clock.System{}
	_ nower = (*clock.Manual)(nil)
)

var _ = Describe("System", func() {
	It("reads the wall clock", func() {
		before := time.Now()
		got := clock.System{}.Now()
		Expect(got).To(BeTemporally(">=", before))
		Expect(got).To(BeTemporally("<=", time.Now()))
	})
})

var _ = Describe("Manual", func() {
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

	It("reads the time it was given until told to move", func() {
		c := clock.NewManual(start)
		Expect(c.Now()).To(Equal(start))
		Expect(c.Now()).To(Equal(start))
	})

	It("advances by exact durations", func() {
		c := clock.NewManual(start)
		c.Advance(4*time.Minute + 59*time.Second)
		Expect(c.Now()).To(Equal(start.Add(299 * time.Second)))
		c.Advance(-time.Second)
		Expect(c.Now()).To(Equal(start.Add(298 * time.Second)))
	})

	It("jumps to a set time", func() {
		c := clock.NewManual(start)
		later := start.Add(7 * 24 * time.Hour)
		c.Set(later)
		Expect(c.Now()).To(Equal(later))
	})

	It("is safe to read while another goroutine advances it", func() {
		c := clock.NewManual(start)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(2)
			go func() { defer wg.Done(); c.Advance(time.Second) }()
			go func() { defer wg.Done(); _ = c.Now() }()
		}
		wg.Wait()
		Expect(c.Now()).To(Equal(start.Add(8 * time.Second)))
	})
})
