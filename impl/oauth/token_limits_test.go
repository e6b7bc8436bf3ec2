package oauth_test

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/oauth"
)

// storeFile is what the store file looks like on disk: a write
// transaction always rewrites its meta page, so any commit shows.
func storeFile(h *host) os.FileInfo {
	GinkgoHelper()
	fi, err := os.Stat(filepath.Join(h.dir, "host.db"))
	Expect(err).NotTo(HaveOccurred())
	return fi
}

// writesNothing runs requests and expects the store file untouched by them.
func writesNothing(h *host, requests func()) {
	GinkgoHelper()
	time.Sleep(10 * time.Millisecond) // a commit after this shows as a later modification time
	before := storeFile(h)
	requests()
	after := storeFile(h)
	Expect(after.ModTime()).To(Equal(before.ModTime()), "the store was written")
	Expect(after.Size()).To(Equal(before.Size()), "the store was written")
}

var _ = Describe("Token endpoint under anonymous load (RFC 8628 section 5.2)", func() {
	DescribeTable("answers a request that changes nothing without writing to the store",
		func(form func(h *host) url.Values, code string) {
			h := newHost()
			f := form(h)
			writesNothing(h, func() {
				for range 5 {
					expectOAuthError(h.anonPostForm("/oauth/token", f), http.StatusBadRequest, code, "")
				}
			})
		},
		Entry("a device code never issued", func(*host) url.Values {
			return url.Values{"grant_type": {deviceURN}, "device_code": {"never-issued"}, "client_id": {"nobody"}}
		}, "invalid_grant"),
		Entry("another client's device code", func(h *host) url.Values {
			d := h.startDevice(h.register())
			return url.Values{"grant_type": {deviceURN}, "device_code": {d.deviceCode}, "client_id": {h.register()}}
		}, "invalid_grant"),
		Entry("a denied device code", func(h *host) url.Values {
			d := h.startDevice(h.register())
			Expect(h.decide(d.userCode, "guest", "deny").status).To(Equal(http.StatusOK))
			return url.Values{"grant_type": {deviceURN}, "device_code": {d.deviceCode}, "client_id": {d.clientID}}
		}, "access_denied"),
		Entry("an authorization code never issued", func(*host) url.Values {
			return url.Values{"grant_type": {"authorization_code"}, "code": {"never-issued"}, "client_id": {"nobody"},
				"redirect_uri": {"http://127.0.0.1/callback"}, "code_verifier": {"v"}}
		}, "invalid_grant"),
	)

	// Issue 26 item 4: a poll of one's own pending code changes nothing a
	// restart needs; its timing is kept in memory.
	It("answers its client's polls of a pending code, slow_down included, without writing to the store", func() {
		h := newHost()
		d := h.startDevice(h.register())
		writesNothing(h, func() {
			expectOAuthError(h.poll(d), http.StatusBadRequest, "authorization_pending", "")
			h.clock.Advance(5 * time.Second)
			expectOAuthError(h.poll(d), http.StatusBadRequest, "authorization_pending", "")
			expectOAuthError(h.poll(d), http.StatusBadRequest, "slow_down", "")
			By("keeping the interval, now 10 seconds, for the later polls")
			h.clock.Advance(5 * time.Second)
			expectOAuthError(h.poll(d), http.StatusBadRequest, "slow_down", "")
			h.clock.Advance(15 * time.Second)
			expectOAuthError(h.poll(d), http.StatusBadRequest, "authorization_pending", "")
		})
		Expect(h.decide(d.userCode, "guest", "approve").status).To(Equal(http.StatusOK))
		Expect(h.poll(d).status).To(Equal(http.StatusOK))
		expectOAuthError(h.poll(d), http.StatusBadRequest, "invalid_grant", "")
	})

	Describe("with 3 token requests per address at once, one more a minute", func() {
		var h *host
		BeforeEach(func() { h = newHost(oauth.Options{TokenBurst: 3, TokenEvery: time.Minute}) })

		It("tells a device poll over the limit slow_down, and lets it on once the wait is over", func() {
			d := h.startDevice(h.register())
			for range 3 {
				expectOAuthError(h.poll(d), http.StatusBadRequest, "authorization_pending", "")
				h.clock.Advance(5 * time.Second)
			}
			r := h.poll(d)
			expectOAuthError(r, http.StatusBadRequest, "slow_down",
				"Too many token requests from this address; poll 5 seconds more slowly (RFC 8628 section 3.5)")
			Expect(r.header.Get("Retry-After")).To(Equal("45"))
			h.clock.Advance(45 * time.Second)
			expectOAuthError(h.poll(d), http.StatusBadRequest, "authorization_pending", "")
		})

		It("answers any other grant over the limit 429 with Retry-After", func() {
			form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"x"}, "client_id": {"nobody"}}
			for range 3 {
				expectOAuthError(h.anonPostForm("/oauth/token", form), http.StatusBadRequest, "invalid_grant", "")
			}
			r := h.anonPostForm("/oauth/token", form)
			expectOAuthError(r, http.StatusTooManyRequests, "too_many_requests",
				"Too many token requests from this address; wait and try again")
			Expect(r.header.Get("Retry-After")).To(Equal("60"))
		})
	})
})
