package oauth_test

import (
	"net/http"
	"net/url"
	"regexp"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Device authorization (RFC 8628; source sections 2, 3, 7.3 and 8)", func() {
	var h *host
	var clientID string
	BeforeEach(func() {
		h = newHost()
		clientID = h.register()
	})

	Describe("POST /oauth/device_authorization", func() {
		It("answers the RFC 8628 section 3.2 fields", func() {
			r := h.postForm("/oauth/device_authorization", url.Values{"client_id": {clientID}})
			Expect(r.status).To(Equal(http.StatusOK))
			Expect(r.header.Get("Cache-Control")).To(Equal("no-store"))
			Expect(r.str("device_code")).To(HaveLen(43))
			Expect(r.str("user_code")).To(MatchRegexp(`^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$`))
			Expect(r.str("verification_uri")).To(Equal(h.url("/oauth/device")))
			Expect(r.str("verification_uri_complete")).To(Equal(h.url("/oauth/device?user_code=" + r.str("user_code"))))
			Expect(r.json).To(HaveKeyWithValue("expires_in", BeNumerically("==", 300)))
			Expect(r.json).To(HaveKeyWithValue("interval", BeNumerically("==", 5)))
		})

		It("draws user codes without vowels, digits or look-alikes", func() {
			seen := map[string]bool{}
			for range 50 {
				// Past the client's rate and pending cap (device_limits_test.go).
				h.clock.Advance(6 * time.Minute)
				code := h.startDevice(clientID).userCode
				Expect(code).To(MatchRegexp(`^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$`))
				Expect(regexp.MustCompile(`[AEIOUY0-9]`).MatchString(code)).To(BeFalse())
				seen[code] = true
			}
			Expect(seen).To(HaveLen(50))
		})

		It("refuses a missing client_id", func() {
			expectOAuthError(h.postForm("/oauth/device_authorization", url.Values{}),
				http.StatusBadRequest, "invalid_client", "Missing client_id")
		})

		It("refuses an unknown client_id", func() {
			expectOAuthError(h.postForm("/oauth/device_authorization", url.Values{"client_id": {"nope"}}),
				http.StatusBadRequest, "invalid_client", "")
		})

		It("refuses a client that did not register for the device grant", func() {
			r := h.postJSON("/oauth/register", `{"redirect_uris":["https://a.example/cb"],"grant_types":["authorization_code"]}`)
			expectOAuthError(h.postForm("/oauth/device_authorization", url.Values{"client_id": {r.str("client_id")}}),
				http.StatusBadRequest, "unauthorized_client", "")
		})

		It("refuses a repeated parameter (RFC 6749 section 3.2)", func() {
			expectOAuthError(h.postRaw("/oauth/device_authorization", "client_id="+clientID+"&client_id="+clientID),
				http.StatusBadRequest, "invalid_request", "Parameter client_id is repeated")
		})
	})

	Describe("the device grant at POST /oauth/token", func() {
		var d deviceStart
		BeforeEach(func() { d = h.startDevice(clientID) })

		It("answers authorization_pending before consent", func() {
			expectOAuthError(h.poll(d), http.StatusBadRequest, "authorization_pending", "")
		})

		It("issues a credential with no expiry and no refresh token once approved", func() {
			Expect(h.decide(d.userCode, "owner", "approve").status).To(Equal(http.StatusOK))
			r := h.poll(d)
			Expect(r.status).To(Equal(http.StatusOK))
			Expect(r.header.Get("Cache-Control")).To(Equal("no-store"))
			Expect(r.json).To(HaveKeyWithValue("token_type", "Bearer"))
			Expect(r.str("access_token")).To(HaveLen(64))
			Expect(r.json).NotTo(HaveKey("expires_in"))
			Expect(r.json).NotTo(HaveKey("refresh_token"))
		})

		It("accepts the short grant type name and a matching client_id", func() {
			h.decide(d.userCode, "owner", "approve")
			r := h.postForm("/oauth/token", url.Values{"grant_type": {"device_code"}, "device_code": {d.deviceCode},
				"client_id": {clientID}})
			Expect(r.status).To(Equal(http.StatusOK), r.body)
		})

		It("refuses a client_id other than the code's", func() {
			h.decide(d.userCode, "owner", "approve")
			r := h.postForm("/oauth/token", url.Values{"grant_type": {deviceURN}, "device_code": {d.deviceCode},
				"client_id": {h.register()}})
			expectOAuthError(r, http.StatusBadRequest, "invalid_grant", "Invalid or expired device_code")
		})

		It("redeems a device code once", func() {
			h.decide(d.userCode, "owner", "approve")
			Expect(h.poll(d).status).To(Equal(http.StatusOK))
			expectOAuthError(h.poll(d), http.StatusBadRequest, "invalid_grant", "Invalid or expired device_code")
		})

		It("answers access_denied once denied", func() {
			r := h.decide(d.userCode, "owner", "deny")
			Expect(r.status).To(Equal(http.StatusOK))
			Expect(r.body).To(ContainSubstring("denied"))
			expectOAuthError(h.poll(d), http.StatusBadRequest, "access_denied", "")
		})

		It("refuses an unknown device_code with the source's text", func() {
			expectOAuthError(h.poll(deviceStart{deviceCode: "not-a-device-code"}), http.StatusBadRequest, "invalid_grant", "Invalid or expired device_code")
		})

		It("refuses a missing device_code as invalid_request", func() {
			expectOAuthError(h.postForm("/oauth/token", url.Values{"grant_type": {deviceURN}}),
				http.StatusBadRequest, "invalid_request", "Missing device_code")
		})

		Describe("the five-minute window (source section 3)", func() {
			It("still redeems an approved code at 4m59s", func() {
				h.decide(d.userCode, "owner", "approve")
				h.clock.Advance(4*time.Minute + 59*time.Second)
				Expect(h.poll(d).status).To(Equal(http.StatusOK))
			})

			It("still answers authorization_pending at 4m59s", func() {
				h.clock.Advance(4*time.Minute + 59*time.Second)
				expectOAuthError(h.poll(d), http.StatusBadRequest, "authorization_pending", "")
			})

			It("refuses an approved code at exactly 5m as invalid_grant", func() {
				h.decide(d.userCode, "owner", "approve")
				h.clock.Advance(5 * time.Minute)
				expectOAuthError(h.poll(d), http.StatusBadRequest, "invalid_grant", "Invalid or expired device_code")
			})

			It("refuses an approved code at 5m01s as invalid_grant", func() {
				h.decide(d.userCode, "owner", "approve")
				h.clock.Advance(5*time.Minute + time.Second)
				expectOAuthError(h.poll(d), http.StatusBadRequest, "invalid_grant", "Invalid or expired device_code")
			})

			It("no longer offers consent for an expired code", func() {
				h.clock.Advance(5*time.Minute + time.Second)
				r := h.get("/oauth/device?user_code=" + d.userCode)
				Expect(r.status).To(Equal(http.StatusBadRequest))
				Expect(r.body).To(ContainSubstring("expired"))
				Expect(r.body).NotTo(ContainSubstring(`id="approve"`))
			})
		})

		Describe("slow_down (RFC 8628 section 3.5)", func() {
			It("never answers slow_down to the first poll", func() {
				expectOAuthError(h.poll(d), http.StatusBadRequest, "authorization_pending", "")
			})

			It("answers slow_down to a poll sooner than the interval and adds 5 seconds to it", func() {
				expectOAuthError(h.poll(d), http.StatusBadRequest, "authorization_pending", "")
				h.clock.Advance(4 * time.Second)
				expectOAuthError(h.poll(d), http.StatusBadRequest, "slow_down", "")

				By("requiring the grown 10-second interval from then on")
				h.clock.Advance(9 * time.Second)
				expectOAuthError(h.poll(d), http.StatusBadRequest, "slow_down", "")
				h.clock.Advance(15 * time.Second)
				expectOAuthError(h.poll(d), http.StatusBadRequest, "authorization_pending", "")
			})

			It("answers authorization_pending to polls exactly one interval apart", func() {
				for range 3 {
					expectOAuthError(h.poll(d), http.StatusBadRequest, "authorization_pending", "")
					h.clock.Advance(5 * time.Second)
				}
			})
		})
	})
})
