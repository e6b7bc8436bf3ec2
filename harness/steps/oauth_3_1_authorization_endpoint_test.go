package steps

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("repeatedMembers", func() {
	DescribeTable("names the token response members OAuth 2.1 defines that a raw JSON object repeats",
		func(body string, want []string) {
			got, err := repeatedMembers([]byte(body))
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(want))
		},
		Entry("none repeated", `{"access_token":"a","token_type":"Bearer","expires_in":60}`, nil),
		Entry("access_token twice", `{"access_token":"a","token_type":"Bearer","access_token":"b"}`, []string{"access_token"}),
		Entry("a repeated member after a nested object", `{"x":{"scope":"1","scope":"2"},"scope":"a","scope":"b"}`, []string{"scope"}),
		Entry("a member no OAuth 2.1 section defines", `{"access_token":"a","ext":1,"ext":2}`, nil),
	)
	It("refuses what is no JSON object", func() {
		_, err := repeatedMembers([]byte(`["access_token"]`))
		Expect(err).To(HaveOccurred())
	})
})
