package oauthclient_test

import (
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/oauthclient"
)

var _ = DescribeTable("a refresh names the client, and the resource when there is one",
	func(resource string, want url.Values) {
		Expect(oauthclient.RefreshForm("rt", "c", resource)).To(Equal(want))
	},
	Entry("with a resource", "https://h/mcp", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"rt"}, "client_id": {"c"}, "resource": {"https://h/mcp"}}),
	Entry("without one", "", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"rt"}, "client_id": {"c"}}),
)
