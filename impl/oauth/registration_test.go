package oauth_test

import (
	"encoding/json"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

const redirectRule = "redirect_uris must be https, RFC 8252 loopback http, or a private-use scheme"

var _ = Describe("Client registration (RFC 7591; source sections 4 and 7.3)", func() {
	var h *host
	BeforeEach(func() { h = newHost() })

	registerWith := func(uris ...string) reply {
		b, err := json.Marshal(map[string]any{"redirect_uris": uris})
		Expect(err).NotTo(HaveOccurred())
		return h.postJSON("/oauth/register", string(b))
	}

	It("registers a public client and answers 201 with its metadata", func() {
		r := h.postJSON("/oauth/register", `{"redirect_uris":["https://app.example/cb"],"client_name":"Agent"}`)
		Expect(r.status).To(Equal(http.StatusCreated))
		Expect(r.header.Get("Cache-Control")).To(Equal("no-store"))
		Expect(r.str("client_id")).NotTo(BeEmpty())
		Expect(r.json).To(HaveKeyWithValue("client_id_issued_at", BeNumerically("==", epoch.Unix())))
		Expect(r.json).To(HaveKeyWithValue("redirect_uris", ConsistOf("https://app.example/cb")))
		Expect(r.json).To(HaveKeyWithValue("token_endpoint_auth_method", "none"))
		Expect(r.json).To(HaveKeyWithValue("grant_types",
			ConsistOf(deviceURN, "authorization_code", "refresh_token")))
		Expect(r.json).To(HaveKeyWithValue("client_name", "Agent"))
	})

	It("gives every registration its own client_id", func() {
		Expect(h.register()).NotTo(Equal(h.register()))
	})

	It("omits client_name when none was given and ignores unknown metadata", func() {
		r := h.postJSON("/oauth/register", `{"redirect_uris":["https://a.example/cb"],"software_id":"x","extra":{"n":1}}`)
		Expect(r.status).To(Equal(http.StatusCreated))
		Expect(r.json).NotTo(HaveKey("client_name"))
	})

	It("keeps only supported grant types and maps the short device_code name", func() {
		r := h.postJSON("/oauth/register", `{"redirect_uris":["https://a.example/cb"],"grant_types":["device_code","client_credentials"]}`)
		Expect(r.status).To(Equal(http.StatusCreated))
		Expect(r.json).To(HaveKeyWithValue("grant_types", ConsistOf(deviceURN)))
	})

	DescribeTable("refuses a request without redirect_uris with the source's text",
		func(body string) {
			expectOAuthError(h.postJSON("/oauth/register", body), http.StatusBadRequest,
				"invalid_redirect_uri", "Missing redirect_uris")
		},
		Entry("absent", `{"client_name":"x"}`),
		Entry("null", `{"redirect_uris":null}`),
		Entry("empty", `{"redirect_uris":[]}`),
		Entry("empty object", `{}`),
	)

	DescribeTable("accepts https, loopback http and private-use schemes",
		func(uri string) {
			Expect(registerWith(uri).status).To(Equal(http.StatusCreated))
		},
		Entry("https", "https://app.example/oauth/callback"),
		Entry("https with port and query", "https://app.example:8443/cb?x=1"),
		Entry("IPv4 loopback, no port", "http://127.0.0.1/cb"),
		Entry("IPv4 loopback, any port", "http://127.0.0.1:51004/cb"),
		Entry("IPv6 loopback", "http://[::1]:8080/cb"),
		Entry("private-use scheme (RFC 8252 section 7.1)", "com.example.app:/oauth2redirect"),
		Entry("private-use scheme with authority", "com.example.app://callback"),
	)

	DescribeTable("refuses other redirect URIs with invalid_redirect_uri and the source's text",
		func(uri string) {
			r := registerWith(uri)
			expectOAuthError(r, http.StatusBadRequest, "invalid_redirect_uri", "")
			Expect(r.str("error_description")).To(HavePrefix(redirectRule))
			Expect(r.str("error_description")).To(ContainSubstring(uri))
		},
		Entry("plain http on a public host", "http://app.example/cb"),
		Entry("http on localhost by name (RFC 8252 section 8.3)", "http://localhost:8080/cb"),
		Entry("http on another loopback address", "http://127.0.0.2/cb"),
		Entry("ftp", "ftp://files.example/cb"),
		Entry("javascript", "javascript:alert(1)"),
		Entry("data", "data:text/html,hi"),
		Entry("file", "file:///etc/passwd"),
		Entry("relative", "/callback"),
		Entry("custom scheme without a dot", "myapp:/cb"),
		Entry("https without host", "https:///cb"),
		Entry("empty string", ""),
	)

	DescribeTable("refuses fragments and userinfo as invalid_redirect_uri",
		func(uri, why string) {
			r := registerWith(uri)
			expectOAuthError(r, http.StatusBadRequest, "invalid_redirect_uri", "")
			Expect(r.str("error_description")).To(ContainSubstring(why))
		},
		Entry("fragment", "https://app.example/cb#frag", "fragment"),
		Entry("empty fragment", "https://app.example/cb#", "fragment"),
		Entry("userinfo", "https://user:pass@app.example/cb", "userinfo"),
	)

	It("refuses the whole registration when any one URI is refused", func() {
		r := registerWith("https://ok.example/cb", "http://bad.example/cb")
		expectOAuthError(r, http.StatusBadRequest, "invalid_redirect_uri", "")
		Expect(r.str("error_description")).To(HavePrefix(redirectRule))
	})

	DescribeTable("takes JSON only, so a cross-site form post cannot register (RFC 7591 section 3.1)",
		func(contentType string) {
			req, err := http.NewRequest(http.MethodPost, h.url("/oauth/register"),
				strings.NewReader(`{"redirect_uris":["https://a.example/cb"]}`))
			Expect(err).NotTo(HaveOccurred())
			if contentType != "" {
				req.Header.Set("Content-Type", contentType)
			}
			expectOAuthError(do(req), http.StatusBadRequest, "invalid_client_metadata",
				"Content-Type must be application/json (RFC 7591 section 3.1)")
		},
		Entry("a form post", "application/x-www-form-urlencoded"),
		Entry("a text/plain form post", "text/plain"),
		Entry("a multipart form post", "multipart/form-data; boundary=x"),
		Entry("no Content-Type", ""),
		Entry("a malformed Content-Type", "application/json;;"),
	)

	It("accepts application/json with parameters", func() {
		req, err := http.NewRequest(http.MethodPost, h.url("/oauth/register"),
			strings.NewReader(`{"redirect_uris":["https://a.example/cb"]}`))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
		Expect(do(req).status).To(Equal(http.StatusCreated))
	})

	DescribeTable("answers malformed metadata with invalid_client_metadata, never a 500",
		func(body string) {
			expectOAuthError(h.postJSON("/oauth/register", body), http.StatusBadRequest, "invalid_client_metadata", "")
		},
		Entry("not JSON", `redirect_uris=https://a.example/cb`),
		Entry("truncated JSON", `{"redirect_uris":["https://a.example/cb"`),
		Entry("a JSON array", `["https://a.example/cb"]`),
		Entry("JSON null", `null`),
		Entry("empty body", ``),
		Entry("redirect_uris as a string", `{"redirect_uris":"https://a.example/cb"}`),
		Entry("redirect_uris with a number", `{"redirect_uris":[1]}`),
		Entry("client_name as a number", `{"redirect_uris":["https://a.example/cb"],"client_name":7}`),
		Entry("client_name too long", `{"redirect_uris":["https://a.example/cb"],"client_name":"`+strings.Repeat("n", 201)+`"}`),
		Entry("grant_types as a string", `{"redirect_uris":["https://a.example/cb"],"grant_types":"authorization_code"}`),
		Entry("only unsupported grant types", `{"redirect_uris":["https://a.example/cb"],"grant_types":["client_credentials"]}`),
		Entry("token_endpoint_auth_method as an object", `{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":{}}`),
		Entry("a body over 64 KiB", `{"redirect_uris":["https://a.example/cb"],"client_name":"`+strings.Repeat("x", 70<<10)+`"}`),
	)
})
