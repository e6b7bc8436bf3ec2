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

// ApproveDevice is what toolhost approve runs: it holds the owner secret, so
// it keeps the guards ApproveAuthorization has.
var _ = Describe("ApproveDevice", func() {
	var elsewhere *httptest.Server
	var reached atomic.Int32
	BeforeEach(func() {
		reached.Store(0)
		elsewhere = httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) }))
		DeferCleanup(elsewhere.Close)
	})

	It("refuses plain http to a target that is not loopback, before sending anything", func(ctx context.Context) {
		err := oauth.ApproveDevice(ctx, http.DefaultClient, "http://tools.example.com", ownerSecret, "BCDF-GHJK", "owner")
		Expect(err).To(MatchError(ContainSubstring("plain http on a non-loopback host")))
	})

	It("follows no redirect: a target answering the sign-in with 307 elsewhere sends the secret nowhere", func(ctx context.Context) {
		target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere.URL+"/oauth/login", http.StatusTemporaryRedirect)
		}))
		DeferCleanup(target.Close)
		err := oauth.ApproveDevice(ctx, target.Client(), target.URL, ownerSecret, "BCDF-GHJK", "owner")
		Expect(err).To(MatchError(ContainSubstring("the host answered 307")))
		Expect(reached.Load()).To(BeZero())
	})

	It("opens the consent page on the target, not where the sign-in's Location points", func(ctx context.Context) {
		h := newHost()
		d := h.startDevice(h.register())
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/oauth/login" {
				http.Redirect(w, r, elsewhere.URL+"/oauth/device", http.StatusSeeOther)
				return
			}
			h.mux.ServeHTTP(w, r)
		}))
		DeferCleanup(front.Close)
		// The front answers the sign-in without a session: the consent page
		// then asks for the owner secret, and nothing is approved.
		err := oauth.ApproveDevice(ctx, front.Client(), front.URL, ownerSecret, d.userCode, "owner")
		Expect(err).To(MatchError(ContainSubstring("shows no approval form")))
		Expect(reached.Load()).To(BeZero())
	})

	It("approves a pending sign-in on a loopback target", func(ctx context.Context) {
		h := newHost()
		d := h.startDevice(h.register())
		Expect(oauth.ApproveDevice(ctx, http.DefaultClient, h.url(""), ownerSecret, d.userCode, "member")).To(Succeed())
		Expect(h.poll(d).str("scope")).To(Equal("afs:read afs:write"))
	})
})
