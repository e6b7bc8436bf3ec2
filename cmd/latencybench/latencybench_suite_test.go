package main

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestLatencybench(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "latencybench")
}

var _ = Describe("the round trips it takes", func() {
	DescribeTable("reads 0 or a duration",
		func(in string, want time.Duration) { Expect(parseRTT(in)).To(Equal(want)) },
		Entry("none", "0", time.Duration(0)),
		Entry("milliseconds", " 50ms", 50*time.Millisecond),
	)
	It("refuses anything else, saying what it takes", func() {
		_, err := parseRTT("fast")
		Expect(err).To(MatchError(ContainSubstring("a duration such as 50ms")))
	})
})

var _ = Describe("the delaying proxy", func() {
	It("forwards both ways, byte for byte", func() {
		echo, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(echo.Close)
		go func() {
			c, err := echo.Accept()
			if err == nil {
				_, _ = io.Copy(c, c)
				c.Close()
			}
		}()
		front, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		ctx, cancel := context.WithCancel(context.Background())
		DeferCleanup(cancel)
		go proxy(ctx, front, echo.Addr().String(), time.Millisecond)
		c, err := net.Dial("tcp", front.Addr().String())
		Expect(err).NotTo(HaveOccurred())
		defer c.Close()
		_, err = c.Write([]byte("hello through the proxy"))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.(*net.TCPConn).CloseWrite()).To(Succeed())
		got, err := io.ReadAll(c)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal("hello through the proxy"))
	})
})
