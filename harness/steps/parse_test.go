package steps

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/target"
)

var _ = Describe("parseSpan", func() {
	DescribeTable("reads the time spans features speak of",
		func(text string, want time.Duration) {
			Expect(parseSpan(text)).To(Equal(want))
		},
		Entry("one unit", "5 minutes", 5*time.Minute),
		Entry("a singular unit", "1 second", time.Second),
		Entry("two units", "4 minutes 59 seconds", 4*time.Minute+59*time.Second),
		Entry("joined by and", "7 days and 1 second", 7*24*time.Hour+time.Second),
		Entry("hours", "2 hours", 2*time.Hour),
	)

	DescribeTable("refuses what it cannot read",
		func(text string) {
			_, err := parseSpan(text)
			Expect(err).To(MatchError(ContainSubstring("cannot read the time span")))
		},
		Entry("empty", ""),
		Entry("a number alone", "5"),
		Entry("an unknown unit", "3 fortnights"),
		Entry("a word for a number", "five minutes"),
		Entry("a negative number", "-1 minutes"),
	)
})

var _ = Describe("expand", func() {
	var st *State
	BeforeEach(func() {
		st = &State{
			Suite: &Suite{Target: &target.Target{Profile: profile.Default("http://127.0.0.1:8080")}},
			vars:  map[string]string{"client_id": "c-123"},
		}
	})

	It("replaces profile keys and values learned in the scenario", func() {
		Expect(st.expand("{base}/mcp")).To(Equal("http://127.0.0.1:8080/mcp"))
		Expect(st.expand("{tools.write} on {paths.closed}")).To(Equal("afs_write on /base/notes.txt"))
		Expect(st.expand("{paths.unsupported.operation} of {paths.unsupported.path}")).To(Equal("write of /overlay/readonly/about.md"))
		Expect(st.expand("client {client_id}")).To(Equal("client c-123"))
	})

	It("leaves text without placeholders as it is", func() {
		Expect(st.expand(`{"path": "/x"} and {Upper} and {}`)).To(Equal(`{"path": "/x"} and {Upper} and {}`))
	})

	It("refuses an unknown placeholder, naming each, never leaving it in", func() {
		out, err := st.expand("{tools.nowhere} on {paths.open} and {device_code}")
		Expect(err).To(MatchError(ContainSubstring("unknown placeholder {tools.nowhere}, {device_code}")))
		Expect(out).To(BeEmpty())
	})
})
