package oauth

import (
	"net/http"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("registrationLimiter", func() {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

	It("never holds more than maxPeers addresses", func() {
		l := newRegistrationLimiter(2, time.Minute)
		for i := range maxPeers + 500 {
			ok, _ := l.allow("10.0."+strconv.Itoa(i/256)+"."+strconv.Itoa(i%256), start.Add(time.Duration(i)*time.Millisecond))
			Expect(ok).To(BeTrue())
		}
		Expect(len(l.peers)).To(BeNumerically("<=", maxPeers))
	})

	It("forgets addresses idle long enough to have refilled their burst", func() {
		l := newRegistrationLimiter(2, time.Minute)
		for i := range maxPeers {
			l.allow("old-"+strconv.Itoa(i), start)
		}
		ok, _ := l.allow("new", start.Add(2*time.Minute))
		Expect(ok).To(BeTrue())
		Expect(l.peers).To(HaveLen(1))
	})

	DescribeTable("keys on the peer address",
		func(remote, want string) {
			Expect(peerKey(&http.Request{RemoteAddr: remote})).To(Equal(want))
		},
		Entry("IPv4", "192.0.2.7:5555", "192.0.2.7"),
		Entry("IPv4-mapped IPv6", "[::ffff:192.0.2.7]:5555", "192.0.2.7"),
		Entry("IPv6, by /64", "[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"),
		Entry("unparsable", "somewhere", "somewhere"),
	)
})
