package mcpclient

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("giving a raw body the 2026-07-28 _meta", func() {
	It("puts _meta first in params and keeps every member as written, duplicates too", func() {
		body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params" : {"name":"a","name":"b"}}`
		got := string(withMeta([]byte(body)))
		Expect(got).To(HavePrefix(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params" : {"_meta":{`))
		Expect(got).To(HaveSuffix(`,"name":"a","name":"b"}}`))
		Expect(got).To(ContainSubstring(`"io.modelcontextprotocol/protocolVersion":"2026-07-28"`))
	})

	It("fills empty params without a trailing comma", func() {
		got := withMeta([]byte(`{"method":"tools/list","params":{}}`))
		Expect(string(got)).To(MatchRegexp(`^\{"method":"tools/list","params":\{"_meta":\{.*\}\}\}$`))
	})

	DescribeTable("leaves alone what it cannot or need not fill",
		func(body string) { Expect(string(withMeta([]byte(body)))).To(Equal(body)) },
		Entry("a batch", `[{"method":"tools/list","params":{}}]`),
		Entry("no params", `{"method":"tools/list"}`),
		Entry("params not an object", `{"method":"x","params":[1]}`),
		Entry("_meta already there", `{"method":"x","params":{"_meta":{"k":1}}}`),
		Entry("malformed JSON", `{"method":`),
	)
})
