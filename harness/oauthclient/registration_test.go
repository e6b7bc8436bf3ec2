package oauthclient_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/oauthclient"
)

var _ = Describe("code flow registration", func() {
	DescribeTable("names the application_type MCP's Client Registration gives the redirect URI",
		func(redirectURI, want string) {
			Expect(oauthclient.ApplicationType(redirectURI)).To(Equal(want))
		},
		Entry("a loopback IP", "http://127.0.0.1:8765/callback", "native"),
		Entry("an IPv6 loopback IP", "http://[::1]:8765/callback", "native"),
		Entry("localhost", "http://localhost:3000/callback", "native"),
		Entry("localhost in capitals, which names the same host", "http://LOCALHOST:3000/callback", "native"),
		Entry("a private-use scheme", "com.example.app:/callback", "native"),
		Entry("a remote https host", "https://app.example/callback", "web"),
		Entry("a remote http host", "http://app.example/callback", "web"),
	)

})
