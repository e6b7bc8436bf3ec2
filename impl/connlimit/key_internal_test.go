package connlimit

import (
	"net"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = DescribeTable("the address a cap counts by",
	func(addr, want string) {
		tcp, err := net.ResolveTCPAddr("tcp", addr)
		Expect(err).NotTo(HaveOccurred())
		Expect((&Listener{}).addressKey(tcp)).To(Equal(want))
	},
	Entry("IPv4", "192.0.2.7:4000", "192.0.2.7"),
	Entry("IPv4 mapped into IPv6", "[::ffff:192.0.2.7]:4000", "192.0.2.7"),
	Entry("IPv6, by its /64", "[2001:db8:1:2:3:4:5:6]:4000", "2001:db8:1:2::/64"),
)
