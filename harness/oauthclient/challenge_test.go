package oauthclient_test

import (
	"context"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
	"github.com/conform-mcp/conform/harness/oauthclient"
)

var _ = DescribeTable("chooses the scope as MCP's Scope Selection Strategy orders it",
	func(challenge string, supported []string, want string) {
		Expect(oauthclient.Scope(challenge, supported)).To(Equal(want))
	},
	Entry("the challenge's scope first", "files:read", []string{"a", "b"}, "files:read"),
	Entry("else every scope the metadata supports", "", []string{"a", "b"}, "a b"),
	Entry("else none", "", nil, ""),
)

var _ = Describe("following a challenge to the issuer and the scope", func() {
	It("reads a 401's resource_metadata and scope", func(ctx context.Context) {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		challenge := []string{`Bearer resource_metadata="` + h.RS.URL + `/.well-known/oauth-protected-resource/mcp", scope="files:read"`}
		issuer, scope, err := oauthclient.FollowChallenge(ctx, h.Target().HTTP, h.Endpoint(), http.StatusUnauthorized, challenge)
		Expect(err).NotTo(HaveOccurred())
		Expect(issuer).To(Equal(h.Issuer()))
		Expect(scope).To(Equal("files:read"))
	})

	It("reads no challenge but a 401's, and then takes the scopes the metadata supports", func(ctx context.Context) {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		challenge := []string{`Bearer resource_metadata="https://elsewhere.invalid/x", scope="files:read"`}
		issuer, scope, err := oauthclient.FollowChallenge(ctx, h.Target().HTTP, h.Endpoint(), http.StatusForbidden, challenge)
		Expect(err).NotTo(HaveOccurred())
		Expect(issuer).To(Equal(h.Issuer()))
		Expect(scope).To(Equal(fakeauthz.ScopeTools + " " + fakeauthz.ScopeWrite))
	})
})
