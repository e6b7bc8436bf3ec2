package wire_test

import (
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/wire"
)

var _ = Describe("Describe", func() {
	DescribeTable("says what an answer was in a few words",
		func(a wire.Answer, want string) {
			Expect(wire.Describe(a)).To(Equal(want))
		},
		Entry("a bare status", wire.Answer{Status: 401}, "HTTP 401"),
		Entry("a JSON-RPC result", wire.Answer{Status: 200, Body: []byte(`{"result":{}}`), RPCResult: true}, "HTTP 200 with a JSON-RPC result"),
		Entry("a JSON-RPC error", wire.Answer{Status: 400, RPCError: &wire.RPCError{Code: -32600, Message: "bad"}}, `HTTP 400 with JSON-RPC error -32600 "bad"`),
		Entry("an OAuth error", wire.Answer{Status: 400, JSON: map[string]any{"error": "invalid_grant", "error_description": "spent"}},
			`HTTP 400 with error "invalid_grant" and error_description "spent"`),
		Entry("a JSON object by its members", wire.Answer{Status: 200, JSON: map[string]any{"b": 1, "a": 2}}, "HTTP 200 with members a, b"),
		Entry("any other body, quoted", wire.Answer{Status: 404, Body: []byte(" not here \n")}, `HTTP 404 with body "not here"`),
	)

	It("cuts a long body on a whole character, never inside one", func() {
		body := strings.Repeat("a", 199) + "é" + strings.Repeat("b", 50)
		got := wire.Describe(wire.Answer{Status: 500, Body: []byte(body)})
		Expect(got).To(HaveSuffix(`"…`))
		Expect(utf8.ValidString(got)).To(BeTrue())
		Expect(got).NotTo(ContainSubstring("é"), "the é straddles byte 200, so it is left out whole")
	})
})

var _ = Describe("Cut", func() {
	It("keeps a short string whole", func() {
		Expect(wire.Cut("héllo", 10)).To(Equal("héllo"))
	})
	It("ends before a character the limit falls inside", func() {
		head, cut := wire.Cut("aé", 2)
		Expect(head).To(Equal("a"))
		Expect(cut).To(BeTrue())
	})
})
