package oauth_test

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/oauth"
)

var _ = Describe("Registration rate limit (source sections 7.3 and 8)", func() {
	throttled := "Too many registrations from this address; register once and keep the client_id"

	It("allows 20 registrations per address by default, then answers 429", func() {
		h := newHost()
		for range 20 {
			h.register()
		}
		r := h.postJSON("/oauth/register", `{"redirect_uris":["https://a.example/cb"]}`)
		expectOAuthError(r, http.StatusTooManyRequests, "too_many_requests", throttled)
		Expect(r.header.Get("Retry-After")).To(Equal("180"))
	})

	Describe("with a burst of 3, one more every minute", func() {
		var h *host
		BeforeEach(func() {
			h = newHost(oauth.Options{RegistrationBurst: 3, RegistrationEvery: time.Minute})
		})

		It("throttles with Retry-After, and a client registered earlier keeps working", func() {
			early := h.register()
			h.register()
			h.register()
			r := h.postJSON("/oauth/register", `{"redirect_uris":["https://a.example/cb"]}`)
			expectOAuthError(r, http.StatusTooManyRequests, "too_many_requests", throttled)
			Expect(r.header.Get("Retry-After")).To(Equal("60"))

			By("letting the earlier client run the device flow while throttled")
			d := h.startDevice(early)
			Expect(d.userCode).NotTo(BeEmpty())

			By("counting down Retry-After with the clock")
			h.clock.Advance(45 * time.Second)
			r = h.postJSON("/oauth/register", `{"redirect_uris":["https://a.example/cb"]}`)
			Expect(r.status).To(Equal(http.StatusTooManyRequests))
			Expect(r.header.Get("Retry-After")).To(Equal("15"))

			By("allowing one more once the interval has passed")
			h.clock.Advance(15 * time.Second)
			h.register()
			Expect(h.postJSON("/oauth/register", `{"redirect_uris":["https://a.example/cb"]}`).status).
				To(Equal(http.StatusTooManyRequests))
		})

		It("does not spend the allowance on refused requests", func() {
			for range 10 {
				expectOAuthError(h.postJSON("/oauth/register", `{}`), http.StatusBadRequest,
					"invalid_redirect_uri", "Missing redirect_uris")
			}
			h.register()
			h.register()
			h.register()
		})

		It("keys the limit on the connection's address, not X-Forwarded-For", func() {
			for i := range 4 {
				req, err := http.NewRequest(http.MethodPost, h.url("/oauth/register"),
					strings.NewReader(`{"redirect_uris":["https://a.example/cb"]}`))
				Expect(err).NotTo(HaveOccurred())
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Forwarded-For", "203.0.113."+strconv.Itoa(i))
				r := do(req)
				if i < 3 {
					Expect(r.status).To(Equal(http.StatusCreated))
				} else {
					Expect(r.status).To(Equal(http.StatusTooManyRequests))
				}
			}
		})

		It("refills the whole burst after an idle period", func() {
			for range 3 {
				h.register()
			}
			Expect(h.postJSON("/oauth/register", `{"redirect_uris":["https://a.example/cb"]}`).status).
				To(Equal(http.StatusTooManyRequests))
			h.clock.Advance(time.Hour)
			for range 3 {
				h.register()
			}
			Expect(h.postJSON("/oauth/register", `{"redirect_uris":["https://a.example/cb"]}`).status).
				To(Equal(http.StatusTooManyRequests))
		})
	})
})
