package tools

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestTools(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Tools Suite")
}

var _ = DescribeTable("which Accept headers are served as JSON (RFC 9110 12.5.1)",
	func(values []string, want bool) {
		Expect(acceptsJSON(values)).To(Equal(want))
	},
	Entry("no Accept accepts anything", nil, true),
	Entry("JSON only", []string{"application/json"}, true),
	Entry("what the SDK asks for", []string{"application/json, text/event-stream"}, true),
	Entry("anything, in a second header", []string{"text/html", "*/*"}, true),
	Entry("application wildcard with a weight", []string{"application/*;q=0.5"}, true),
	Entry("JSON refused by weight", []string{"application/json;q=0"}, false),
	Entry("event stream only", []string{"text/event-stream"}, false),
	Entry("HTML only", []string{"text/html"}, false),
)
