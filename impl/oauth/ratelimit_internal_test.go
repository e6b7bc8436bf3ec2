package oauth

import (
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("limiter", func() {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	addr := func(i int) string {
		return "10." + strconv.Itoa(i/65536) + "." + strconv.Itoa(i/256%256) + "." + strconv.Itoa(i%256)
	}

	It("never holds more than maxKeys addresses", func() {
		l := newLimiter(2, time.Minute)
		for i := range maxKeys + 500 {
			ok, _ := l.allow(addr(i), start.Add(time.Duration(i)*time.Millisecond))
			Expect(ok).To(BeTrue())
		}
		Expect(len(l.keys)).To(BeNumerically("<=", maxKeys))
	})

	It("forgets addresses idle long enough to have refilled their burst", func() {
		l := newLimiter(2, time.Minute)
		for i := range maxKeys {
			l.allow("old-"+strconv.Itoa(i), start)
		}
		ok, _ := l.allow("new", start.Add(2*time.Minute))
		Expect(ok).To(BeTrue())
		Expect(l.keys).To(HaveLen(1))
	})

	It("does not forget a throttled address however many others come", func() {
		l := newLimiter(2, time.Minute)
		l.allow("attacker", start)
		l.allow("attacker", start)
		ok, _ := l.allow("attacker", start)
		Expect(ok).To(BeFalse())
		for i := range 3 * maxKeys {
			l.allow(addr(i), start.Add(time.Millisecond))
		}
		throttled, wait := l.throttled("attacker", start.Add(time.Second))
		Expect(throttled).To(BeTrue())
		Expect(wait).To(BeNumerically(">", 0))
		ok, _ = l.allow("attacker", start.Add(time.Second))
		Expect(ok).To(BeFalse())
	})

	It("limits newcomers as one when every address it holds is throttled", func() {
		l := newLimiter(1, time.Minute)
		for i := range maxKeys {
			l.allow(addr(i), start)
		}
		for i := range maxKeys {
			ok, _ := l.allow(addr(i), start)
			Expect(ok).To(BeFalse())
		}
		ok, _ := l.allow("newcomer-1", start)
		Expect(ok).To(BeTrue())
		ok, _ = l.allow("newcomer-2", start)
		Expect(ok).To(BeFalse(), "the overflow bucket is shared")
		Expect(len(l.keys)).To(Equal(maxKeys))
	})

	It("tells a throttled key's wait without spending", func() {
		l := newLimiter(1, time.Minute)
		throttled, _ := l.throttled("a", start)
		Expect(throttled).To(BeFalse())
		l.allow("a", start)
		throttled, wait := l.throttled("a", start.Add(15*time.Second))
		Expect(throttled).To(BeTrue())
		Expect(wait).To(Equal(45 * time.Second))
		throttled, _ = l.throttled("a", start.Add(time.Minute))
		Expect(throttled).To(BeFalse())
	})
})
