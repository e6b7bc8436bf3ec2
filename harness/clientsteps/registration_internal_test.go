package clientsteps

import (
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/scripted"
)

var _ = Describe("the registrations a client kept", func() {
	reg := func(status int, body string) scripted.Request {
		u, err := url.Parse("http://127.0.0.1:9/register")
		Expect(err).NotTo(HaveOccurred())
		return scripted.Request{Method: "POST", URL: u, Status: status, RespBody: []byte(body)}
	}

	It("are those answered with a client_id, not a request the server refused", func() {
		ok := reg(201, `{"client_id":"c1"}`)
		got := accepted([]scripted.Request{reg(404, "404 page not found"), ok, reg(400, `{"error":"invalid_redirect_uri"}`)})
		Expect(got).To(HaveLen(1))
		Expect(string(got[0].RespBody)).To(Equal(string(ok.RespBody)))
	})
})
