package oauth_test

import (
	"net/http"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Token endpoint (RFC 6749 section 3.2; source sections 4 and 7.3)", func() {
	var h *host
	BeforeEach(func() { h = newHost() })

	DescribeTable("refuses any other grant type with the source's text",
		func(grant string) {
			expectOAuthError(h.postForm("/oauth/token", url.Values{"grant_type": {grant}}),
				http.StatusBadRequest, "unsupported_grant_type",
				"Only device_code, authorization_code, and refresh_token grants are supported")
		},
		Entry("client_credentials", "client_credentials"),
		Entry("password", "password"),
		Entry("token exchange", "urn:ietf:params:oauth:grant-type:token-exchange"),
		Entry("a near miss", "Device_Code"),
	)

	It("refuses a request without grant_type as invalid_request", func() {
		expectOAuthError(h.postForm("/oauth/token", url.Values{"device_code": {"x"}}),
			http.StatusBadRequest, "invalid_request", "Missing grant_type")
	})

	It("refuses a repeated parameter as invalid_request", func() {
		expectOAuthError(h.postRaw("/oauth/token", "grant_type=device_code&device_code=a&device_code=b"),
			http.StatusBadRequest, "invalid_request", "Parameter device_code is repeated")
		expectOAuthError(h.postRaw("/oauth/token", "grant_type=device_code&grant_type=refresh_token"),
			http.StatusBadRequest, "invalid_request", "Parameter grant_type is repeated")
	})

	DescribeTable("answers hostile bodies with 400, never a 500",
		func(contentType, body string) {
			req, err := http.NewRequest(http.MethodPost, h.url("/oauth/token"), strings.NewReader(body))
			Expect(err).NotTo(HaveOccurred())
			if contentType != "" {
				req.Header.Set("Content-Type", contentType)
			}
			expectOAuthError(do(req), http.StatusBadRequest, "invalid_request", "")
		},
		Entry("a body over 64 KiB", "application/x-www-form-urlencoded", "grant_type=device_code&device_code="+strings.Repeat("a", 70<<10)),
		Entry("broken percent-encoding", "application/x-www-form-urlencoded", "grant_type=%zz"),
		Entry("JSON instead of a form", "application/json", `{"grant_type":"device_code"}`),
		Entry("no Content-Type", "", "grant_type=device_code"),
		Entry("a malformed Content-Type", "application/x-www-form-urlencoded; ===", "grant_type=device_code"),
		Entry("repeated parameter with an odd name", "application/x-www-form-urlencoded", "%22%3C=1&%22%3C=2"),
	)

	It("does not echo an odd parameter name into error_description", func() {
		r := h.postRaw("/oauth/token", "%22%3C=1&%22%3C=2")
		expectOAuthError(r, http.StatusBadRequest, "invalid_request", "A parameter is repeated")
	})

	It("accepts the client_id as HTTP Basic with an empty password", func() {
		clientID := h.register()
		d := h.startDevice(clientID)
		h.decide(d.userCode, "owner", "approve")
		req, err := http.NewRequest(http.MethodPost, h.url("/oauth/token"),
			strings.NewReader(url.Values{"grant_type": {deviceURN}, "device_code": {d.deviceCode}}.Encode()))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(clientID, "")
		Expect(do(req).status).To(Equal(http.StatusOK))
	})

	It("refuses a client secret: clients are public", func() {
		req, err := http.NewRequest(http.MethodPost, h.url("/oauth/token"), strings.NewReader("grant_type=device_code&device_code=x"))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth("someone", "secret")
		expectOAuthError(do(req), http.StatusBadRequest, "invalid_client", "")
	})

	It("answers only POST", func() {
		Expect(h.get("/oauth/token").status).To(Equal(http.StatusMethodNotAllowed))
	})
})
