package oauth_test

import (
	"net/http"
	"net/url"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/oauth"
)

// RFC 8628 section 5.2: the device authorization endpoint is limited per
// source address and per client, and a client's pending codes are capped.
var _ = Describe("Device authorization floods", func() {
	start := func(h *host, clientID string) reply {
		return h.postForm("/oauth/device_authorization", url.Values{"client_id": {clientID}})
	}

	It("limits device authorizations per source address, with Retry-After", func() {
		h := newHost(oauth.Options{DeviceBurst: 3, DeviceEvery: time.Minute})
		clients := []string{h.register(), h.register(), h.register(), h.register()}
		for _, c := range clients[:3] {
			Expect(start(h, c).status).To(Equal(http.StatusOK))
		}
		r := start(h, clients[3])
		expectOAuthError(r, http.StatusTooManyRequests, "too_many_requests",
			"Too many device authorizations from this address; wait and try again")
		Expect(r.header.Get("Retry-After")).To(Equal("60"))
		h.clock.Advance(time.Minute)
		Expect(start(h, clients[3]).status).To(Equal(http.StatusOK))
	})

	It("caps a client's pending codes and limits its rate", func() {
		h := newHost()
		clientID := h.register()
		var started []deviceStart
		for range 10 {
			started = append(started, h.startDevice(clientID))
		}
		r := start(h, clientID)
		expectOAuthError(r, http.StatusTooManyRequests, "too_many_requests",
			"Too many pending device authorizations for this client; finish one or let it expire")
		Expect(r.header.Get("Retry-After")).NotTo(BeEmpty())

		By("refusing without writing to the store (issue 26 item 4)")
		writesNothing(h, func() {
			expectOAuthError(start(h, clientID), http.StatusTooManyRequests, "too_many_requests", "")
			expectOAuthError(start(h, "never-registered"), http.StatusBadRequest, "invalid_client", "")
		})

		By("still limiting the rate once none is pending")
		for _, d := range started {
			Expect(h.decide(d.userCode, "owner", "deny").status).To(Equal(http.StatusOK))
		}
		expectOAuthError(start(h, clientID), http.StatusTooManyRequests, "too_many_requests",
			"Too many device authorizations for this client; wait and try again")
		h.clock.Advance(30 * time.Second)
		Expect(start(h, clientID).status).To(Equal(http.StatusOK))

		By("leaving another client of the same address alone")
		Expect(start(h, h.register()).status).To(Equal(http.StatusOK))
	})
})
