package wire_test

import (
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/wire"
)

var _ = Describe("MaskURL", func() {
	DescribeTable("hides credentials in the query and leaves the rest",
		func(raw, want string) {
			u, err := url.Parse(raw)
			Expect(err).NotTo(HaveOccurred())
			Expect(wire.MaskURL(u)).To(Equal(want))
		},
		Entry("an access token", "http://h/mcp?access_token=s3cret", "http://h/mcp?access_token="+wire.Masked),
		Entry("a code beside a state", "http://127.0.0.1:1/cb?state=x&code=abc", "http://127.0.0.1:1/cb?code="+wire.Masked+"&state=x"),
		Entry("no credential", "http://h/mcp?x=1&y=2", "http://h/mcp?x=1&y=2"),
		Entry("no query", "http://h/mcp", "http://h/mcp"),
	)
})

var _ = Describe("Exchange.String", func() {
	It("prefixes every line of a multi-line body", func() {
		ex := wire.Exchange{
			Method: "POST", URL: "http://h/mcp",
			RequestBody:  "{\n  \"id\": 1\n}",
			Status:       200,
			ResponseBody: "event: message\r\ndata: {\"id\":1}\r\n\r\nevent: message\r\n",
		}
		Expect(ex.String()).To(Equal("> POST http://h/mcp\n>\n> {\n>   \"id\": 1\n> }\n" +
			"< HTTP 200 OK\n<\n< event: message\n< data: {\"id\":1}\n<\n< event: message\n"))
	})
	It("shows a run of a client, which no HTTP status answers, as its output alone", func() {
		ex := wire.Exchange{Method: "RUN", URL: "sh -c 'client'", ResponseBody: "exit status 0\n--- stdout\nok"}
		Expect(ex.String()).To(Equal("> RUN sh -c 'client'\n< exit status 0\n< --- stdout\n< ok\n"))
	})
})

var _ = Describe("MaskQuery", func() {
	It("hides a code in a quoted redirect, and what follows it stays", func() {
		Expect(wire.MaskQuery("went to http://127.0.0.1:8765/callback?code=eyJhb.c-d_e&state=s1 then")).
			To(Equal("went to http://127.0.0.1:8765/callback?code=" + wire.Masked + "&state=s1 then"))
		Expect(wire.MaskQuery("error=access_denied&state=x")).To(Equal("error=access_denied&state=x"))
	})
	It("hides a token in a redirect's fragment, where the implicit grant puts it", func() {
		Expect(wire.MaskQuery("http://127.0.0.1:8765/callback#access_token=t0k.en&token_type=Bearer")).
			To(Equal("http://127.0.0.1:8765/callback#access_token=" + wire.Masked + "&token_type=Bearer"))
	})
})
