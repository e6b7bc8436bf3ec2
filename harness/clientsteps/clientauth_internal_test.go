package clientsteps

import (
	"net/http"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/scripted"
)

var _ = Describe("a confidential client's token request", func() {
	token := func(query, auth string, form url.Values) scripted.Request {
		u, err := url.Parse("http://127.0.0.1:9/tenant/token" + query)
		Expect(err).NotTo(HaveOccurred())
		h := http.Header{}
		if auth != "" {
			h.Set("Authorization", auth)
		}
		return scripted.Request{Method: "POST", URL: u, Header: h, Form: form}
	}
	basic := "Basic c3RhdGljLW9uZTpzM2NyM3Q="

	DescribeTable("authenticates by exactly one method, never in the URI",
		func(r scripted.Request, actual string) {
			_, got := authProblem(r)
			Expect(got).To(Equal(actual))
		},
		Entry("HTTP Basic", token("", basic, url.Values{"grant_type": {"authorization_code"}}), ""),
		Entry("the secret beside client_id in the content", token("", "", url.Values{"client_id": {"c"}, "client_secret": {"s"}}), ""),
		Entry("no secret at all", token("", "", url.Values{"client_id": {"c"}}), "a token request without its secret"),
		Entry("both methods", token("", basic, url.Values{"client_secret": {"s"}}), "more than one: client_secret_basic and client_secret_post"),
		Entry("the secret without client_id", token("", "", url.Values{"client_secret": {"s"}}), "client_secret without client_id"),
		Entry("the secret in the URI", token("?client_secret=s", basic, url.Values{}), "client_secret in the request URI"),
	)
})
