package mcpclient

import (
	"strings"
	"testing/iotest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("reading an event stream", func() {
	const response = `{"jsonrpc":"2.0","id":7,"result":{"ok":true}}`

	DescribeTable("finds the response whatever the line ends, even read a byte at a time",
		func(stream string) {
			m := readEvents(iotest.OneByteReader(strings.NewReader(stream)), "7")
			Expect(m).NotTo(BeNil())
			Expect(m.Result).To(MatchJSON(`{"ok":true}`))
		},
		Entry("LF", "data: "+response+"\n\n"),
		Entry("CRLF", "data: "+response+"\r\n\r\n"),
		Entry("lone CR", "data: "+response+"\r\r"),
		Entry("a byte order mark first", "\uFEFFdata: "+response+"\n\n"),
		Entry("a field without a colon ends nothing", "retry\ndata: "+response+"\n\n"),
		Entry("data split over lines", "data: {\"jsonrpc\":\"2.0\",\rdata: \"id\":7,\rdata: \"result\":{\"ok\":true}}\r\r"),
	)

	It("does not dispatch an event whose data lines are not followed by a blank line", func() {
		Expect(readEvents(strings.NewReader("data: "+response+"\n"), "7")).To(BeNil())
	})

	It("keeps comment lines out of the data", func() {
		m := readEvents(strings.NewReader("data: {\"jsonrpc\":\"2.0\",\n: comment\ndata: \"id\":7,\"result\":{}}\n\n"), "7")
		Expect(m).NotTo(BeNil())
	})
})
