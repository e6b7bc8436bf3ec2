package oauthclient_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/wire"
)

var endpoints = oauthclient.Endpoints{
	Register:            "/oauth/register",
	Token:               "/oauth/token",
	DeviceAuthorization: "/oauth/device_authorization",
}

// received is one request the fake host saw.
type received struct {
	method, path string
	header       http.Header
	body         []byte
}

// fakeHost answers every request with the next queued answer and records what it received.
type fakeHost struct {
	*httptest.Server
	mu      sync.Mutex
	got     []received
	answers []answer
}

type answer struct {
	status      int
	contentType string
	body        string
}

func newHost() *fakeHost {
	h := &fakeHost{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.got = append(h.got, received{r.Method, r.URL.Path, r.Header.Clone(), body})
		a := answer{status: http.StatusInternalServerError, body: "no answer queued"}
		if len(h.answers) > 0 {
			a, h.answers = h.answers[0], h.answers[1:]
		}
		h.mu.Unlock()
		if a.contentType != "" {
			w.Header().Set("Content-Type", a.contentType)
		}
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
	}))
	DeferCleanup(h.Close)
	return h
}

func (h *fakeHost) answer(status int, contentType, body string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.answers = append(h.answers, answer{status, contentType, body})
}

func (h *fakeHost) answerJSON(status int, v any) {
	body, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	h.answer(status, "application/json", string(body))
}

func (h *fakeHost) requests() []received {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]received(nil), h.got...)
}

func (h *fakeHost) last() received {
	GinkgoHelper()
	got := h.requests()
	Expect(got).NotTo(BeEmpty())
	return got[len(got)-1]
}

func (h *fakeHost) lastForm() url.Values {
	GinkgoHelper()
	form, err := url.ParseQuery(string(h.last().body))
	Expect(err).NotTo(HaveOccurred())
	return form
}

var _ = Describe("Client", func() {
	var (
		host *fakeHost
		c    *oauthclient.Client
		ctx  context.Context
	)
	BeforeEach(func() {
		host = newHost()
		// A trailing slash on the base must not double the slash before each path.
		c = oauthclient.New(host.URL+"/", endpoints, host.Client())
		ctx = context.Background()
	})

	Describe("Register", func() {
		It("posts the body as JSON and decodes the JSON answer", func() {
			host.answerJSON(http.StatusCreated, map[string]any{"client_id": "c-123", "client_id_issued_at": 1700000000})
			r, err := c.Register(ctx, map[string]any{"redirect_uris": []string{"http://127.0.0.1:9/cb"}, "client_name": "conform"})
			Expect(err).NotTo(HaveOccurred())

			got := host.last()
			Expect(got.method).To(Equal(http.MethodPost))
			Expect(got.path).To(Equal("/oauth/register"))
			Expect(got.header.Get("Content-Type")).To(Equal("application/json"))
			Expect(got.header.Get("Accept")).To(Equal("application/json"))
			Expect(got.body).To(MatchJSON(`{"redirect_uris":["http://127.0.0.1:9/cb"],"client_name":"conform"}`))

			Expect(r.Status).To(Equal(http.StatusCreated))
			Expect(r.Header.Get("Content-Type")).To(Equal("application/json"))
			id, ok := r.String("client_id")
			Expect(ok).To(BeTrue())
			Expect(id).To(Equal("c-123"))
			_, ok = r.String("client_id_issued_at")
			Expect(ok).To(BeFalse(), "a number is not a string member")
			_, ok = r.String("client_secret")
			Expect(ok).To(BeFalse())
			Expect(r.JSON).To(HaveKeyWithValue("client_id_issued_at", BeNumerically("==", 1700000000)))
			Expect(r.Exchange.Method).To(Equal(http.MethodPost))
			Expect(r.Exchange.URL).To(Equal(host.URL + "/oauth/register"))
			Expect(r.Exchange.Status).To(Equal(http.StatusCreated))
		})

		It("sends raw JSON unchanged in meaning", func() {
			host.answer(http.StatusBadRequest, "application/json", `{"error":"invalid_redirect_uri","error_description":"Missing redirect_uris"}`)
			r, err := c.Register(ctx, json.RawMessage(`{"client_name": "no redirect"}`))
			Expect(err).NotTo(HaveOccurred())
			Expect(host.last().body).To(MatchJSON(`{"client_name":"no redirect"}`))
			Expect(r.Status).To(Equal(http.StatusBadRequest))
			code, _ := r.String("error")
			Expect(code).To(Equal("invalid_redirect_uri"))
		})

		It("sends a raw body with the given content type, or none", func() {
			host.answer(http.StatusBadRequest, "text/plain", "bad")
			host.answer(http.StatusBadRequest, "text/plain", "bad")
			r, err := c.RegisterRaw(ctx, "text/plain", []byte(`{"redirect_uris":`))
			Expect(err).NotTo(HaveOccurred())
			Expect(host.last().header.Get("Content-Type")).To(Equal("text/plain"))
			Expect(string(host.last().body)).To(Equal(`{"redirect_uris":`))
			Expect(r.Status).To(Equal(http.StatusBadRequest))
			Expect(r.JSON).To(BeNil())
			Expect(string(r.Body)).To(Equal("bad"))
			_, ok := r.String("error")
			Expect(ok).To(BeFalse())

			_, err = c.RegisterRaw(ctx, "", []byte(`{}`))
			Expect(err).NotTo(HaveOccurred())
			Expect(host.last().header.Values("Content-Type")).To(BeEmpty())
		})

		It("fails to encode what JSON cannot hold, without sending", func() {
			_, err := c.Register(ctx, map[string]any{"bad": make(chan int)})
			Expect(err).To(MatchError(ContainSubstring("encode registration request")))
			Expect(host.requests()).To(BeEmpty())
		})
	})

	Describe("DeviceAuthorize", func() {
		It("posts client_id and extra parameters as a form and masks the device code", func() {
			host.answerJSON(http.StatusOK, map[string]any{
				"device_code":      "dc-secret-value",
				"user_code":        "BZVR-ZQZQ",
				"verification_uri": "http://h/device",
				"expires_in":       300,
				"interval":         5,
			})
			r, err := c.DeviceAuthorize(ctx, "c-123", url.Values{"scope": {"tools"}, "client_id": {"ignored"}})
			Expect(err).NotTo(HaveOccurred())
			Expect(host.last().path).To(Equal("/oauth/device_authorization"))
			Expect(host.last().header.Get("Content-Type")).To(Equal("application/x-www-form-urlencoded"))
			Expect(host.lastForm()).To(Equal(url.Values{"client_id": {"c-123"}, "scope": {"tools"}}))

			code, ok := r.String("device_code")
			Expect(ok).To(BeTrue())
			Expect(code).To(Equal("dc-secret-value"))
			Expect(r.Exchange.ResponseBody).NotTo(ContainSubstring("dc-secret-value"))
			Expect(r.Exchange.ResponseBody).To(ContainSubstring(`"device_code":"` + wire.Masked + `"`))
			Expect(r.Exchange.ResponseBody).To(ContainSubstring("BZVR-ZQZQ"))
		})
	})

	Describe("Token", func() {
		It("posts the form as given and masks the device code and the credential", func() {
			form := url.Values{"grant_type": {oauthclient.DeviceGrantType}, "device_code": {"dc-secret-value"}, "client_id": {"c-123"}}
			host.answerJSON(http.StatusOK, map[string]any{"access_token": "at-secret-value", "token_type": "Bearer"})
			r, err := c.Token(ctx, form)
			Expect(err).NotTo(HaveOccurred())
			Expect(host.last().path).To(Equal("/oauth/token"))
			Expect(host.last().header.Get("Content-Type")).To(Equal("application/x-www-form-urlencoded"))
			Expect(host.lastForm()).To(Equal(form))

			token, _ := r.String("access_token")
			Expect(token).To(Equal("at-secret-value"))
			shown := r.Exchange.String()
			Expect(shown).NotTo(ContainSubstring("dc-secret-value"))
			Expect(shown).NotTo(ContainSubstring("at-secret-value"))
			Expect(r.Exchange.RequestBody).To(ContainSubstring("device_code=" + wire.Masked))
			Expect(r.Exchange.RequestBody).To(ContainSubstring("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code"))
		})

		It("returns an OAuth error answer as a reply", func() {
			host.answerJSON(http.StatusBadRequest, map[string]any{
				"error": "unsupported_grant_type", "error_description": "Only device_code, authorization_code, and refresh_token grants are supported",
			})
			r, err := c.Token(ctx, url.Values{"grant_type": {"password"}})
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Status).To(Equal(http.StatusBadRequest))
			code, _ := r.String("error")
			Expect(code).To(Equal("unsupported_grant_type"))
		})
	})

	Describe("Get", func() {
		It("fetches a well-known document", func() {
			host.answerJSON(http.StatusOK, map[string]any{"resource": "http://h/mcp", "authorization_servers": []string{"http://h"}})
			r, err := c.Get(ctx, "/.well-known/oauth-protected-resource")
			Expect(err).NotTo(HaveOccurred())
			Expect(host.last().method).To(Equal(http.MethodGet))
			Expect(host.last().path).To(Equal("/.well-known/oauth-protected-resource"))
			Expect(host.last().body).To(BeEmpty())
			Expect(r.JSON).To(HaveKeyWithValue("authorization_servers", ConsistOf("http://h")))
			Expect(r.Exchange.RequestBody).To(BeEmpty())
		})

		DescribeTable("leaves JSON nil when the body is not a JSON object",
			func(body string) {
				host.answer(http.StatusOK, "application/json", body)
				r, err := c.Get(ctx, "/.well-known/mcp.json")
				Expect(err).NotTo(HaveOccurred())
				Expect(r.JSON).To(BeNil())
				Expect(string(r.Body)).To(Equal(body))
			},
			Entry("empty", ""),
			Entry("HTML", "<html></html>"),
			Entry("an array", `[{"a":1}]`),
			Entry("null", "null"),
			Entry("an object followed by more", `{"a":1} {"b":2}`),
		)
	})

	It("sends to an authorization server on another origin when an endpoint is an absolute URL", func() {
		as := newHost()
		c := oauthclient.New(host.URL, oauthclient.Endpoints{
			Register:            as.URL + "/register",
			Token:               as.URL + "/as/token",
			DeviceAuthorization: "/oauth/device_authorization",
		}, nil)
		as.answerJSON(http.StatusCreated, map[string]any{"client_id": "c-1"})
		as.answerJSON(http.StatusBadRequest, map[string]any{"error": "invalid_grant"})
		host.answerJSON(http.StatusOK, map[string]any{"device_code": "d", "user_code": "U"})

		r, err := c.Register(ctx, map[string]any{"redirect_uris": []string{"http://127.0.0.1:9/cb"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Exchange.URL).To(Equal(as.URL + "/register"))
		_, err = c.Token(ctx, url.Values{"grant_type": {"x"}})
		Expect(err).NotTo(HaveOccurred())
		_, err = c.DeviceAuthorize(ctx, "c-1", nil)
		Expect(err).NotTo(HaveOccurred())

		Expect(as.requests()).To(HaveLen(2))
		Expect(as.requests()[0].path).To(Equal("/register"))
		Expect(as.requests()[1].path).To(Equal("/as/token"))
		Expect(host.requests()).To(HaveLen(1))
		Expect(host.last().path).To(Equal("/oauth/device_authorization"))
	})

	DescribeTable("Resolve keeps an absolute URL and puts a path under the base",
		func(base, ref, want string) {
			Expect(oauthclient.Resolve(base, ref)).To(Equal(want))
		},
		Entry("a path", "https://h", "/oauth/token", "https://h/oauth/token"),
		Entry("a path, base with a slash", "https://h/", "/oauth/token", "https://h/oauth/token"),
		Entry("a path, base with a path", "https://h/tenant", "/oauth/token", "https://h/tenant/oauth/token"),
		Entry("an absolute URL", "https://h", "https://as.example.com/token", "https://as.example.com/token"),
		Entry("an absolute http URL", "https://h", "http://127.0.0.1:9/t?x=1", "http://127.0.0.1:9/t?x=1"),
	)

	It("returns an error only when the host cannot be reached", func() {
		unreachable := oauthclient.New(host.URL, endpoints, nil)
		host.Close()
		r, err := unreachable.Token(ctx, url.Values{"grant_type": {"x"}})
		Expect(err).To(HaveOccurred())
		Expect(r).To(BeNil())
	})
})
