package oauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/oauth"
)

var _ = Describe("ApproveAuthorization", func() {
	// elsewhere counts every request a server that is not the target gets:
	// the authorization URL is a client's, so it may name any server.
	var elsewhere *httptest.Server
	var reached atomic.Int32
	BeforeEach(func() {
		reached.Store(0)
		elsewhere = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			reached.Add(1)
			w.WriteHeader(http.StatusSeeOther)
		}))
		DeferCleanup(elsewhere.Close)
	})

	It("never sends the owner secret to an authorization URL on another origin than the target", func(ctx context.Context) {
		_, err := oauth.ApproveAuthorization(ctx, elsewhere.Client(), "http://127.0.0.1:1", elsewhere.URL+"/oauth/authorize?client_id=x", "owner-secret", "owner")
		Expect(err).To(MatchError(ContainSubstring("is not on the target http://127.0.0.1:1")))
		Expect(reached.Load()).To(BeZero())
	})

	It("refuses plain http to a target that is not loopback, before sending anything", func(ctx context.Context) {
		_, err := oauth.ApproveAuthorization(ctx, elsewhere.Client(), "http://tools.example.com", "http://tools.example.com/oauth/authorize?client_id=x", "owner-secret", "owner")
		Expect(err).To(MatchError(ContainSubstring("plain http on a non-loopback host")))
	})

	It("takes the target's origin in any case of scheme and host and with its default port written", func(ctx context.Context) {
		// The stand-in target redirects both the sign-in and the request.
		_, err := oauth.ApproveAuthorization(ctx, elsewhere.Client(), elsewhere.URL+"/", "HTTP://"+elsewhere.Listener.Addr().String()+"/oauth/authorize?client_id=x", "owner-secret", "owner")
		Expect(err).NotTo(HaveOccurred())
		Expect(reached.Load()).To(BeEquivalentTo(2))
		_, err = oauth.ApproveAuthorization(ctx, elsewhere.Client(), "https://tools.example.com", "https://TOOLS.example.com:443/oauth/authorize?client_id=x", "", "owner")
		Expect(err).To(MatchError(ContainSubstring("no owner secret")))
	})
})
