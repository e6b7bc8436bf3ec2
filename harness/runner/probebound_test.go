package runner_test

import (
	"context"
	"net"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/spec"
)

var _ = Describe("the pre-flight against a target that accepts connections but never answers (issue 24 item 10)", func() {
	// silent accepts every connection and never writes a byte.
	silent := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		go func() {
			var conns []net.Conn
			defer func() {
				for _, c := range conns {
					c.Close()
				}
			}()
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				conns = append(conns, c)
			}
		}()
		DeferCleanup(ln.Close)
		return "http://" + ln.Addr().String()
	}

	DescribeTable("says it did not answer within the target's timeout, not that it is unreachable",
		func(ctx context.Context, pack string) {
			url := silent()
			t := &target.Target{Profile: profile.Default(url), HTTP: &http.Client{Timeout: 300 * time.Millisecond}}
			p, err := runner.LookupPack(pack)
			Expect(err).NotTo(HaveOccurred())
			err = p.Preflight.Check(ctx, t)
			Expect(err).To(MatchError(ContainSubstring(" did not answer within 300ms (--timeout sets how long a request may take)")))
			Expect(err.Error()).NotTo(ContainSubstring("unreachable"))
		},
		Entry("source", spec.Source),
		Entry("mcp-authorization", spec.Authorization),
	)
})
