package main

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

const benchOutput = `goos: linux
pkg: github.com/conform-mcp/conform/impl/host
BenchmarkMCP/read/bare-2     10000    100 ns/op    50 cpu-ns/op    7000 B/op    80 allocs/op
BenchmarkMCP/read/bare-2     10000    300 ns/op    50 cpu-ns/op    7000 B/op    80 allocs/op
BenchmarkMCP/read/bare-2     10000    110 ns/op    50 cpu-ns/op    7000 B/op    80 allocs/op
BenchmarkMCP/read/host-2      2000    440 ns/op   500 cpu-ns/op  320000 B/op   340 allocs/op
BenchmarkMCP/401/bare-2      20000     50 ns/op    7000 B/op    80 allocs/op
BenchmarkMCP/401/host-2      20000    100 ns/op   13000 B/op   190 allocs/op
BenchmarkVerify-2           500000    900 ns/op
BenchmarkAlone/case-2          100     10 ns/op
PASS
ok  	github.com/conform-mcp/conform/impl/host	6.101s
`

var _ = Describe("the ratio table", func() {
	run := func(input string) (string, bool) {
		var out strings.Builder
		failed, err := filter(strings.NewReader(input), &out)
		Expect(err).NotTo(HaveOccurred())
		return out.String(), failed
	}

	It("copies its input, then gives each variant's speed as a ratio to bare", func() {
		out, failed := run(benchOutput)
		Expect(failed).To(BeFalse())
		Expect(out).To(HavePrefix(benchOutput))
		table := strings.Split(strings.TrimPrefix(out, benchOutput), "\n")
		Expect(table).To(HaveLen(10), out)
		Expect(table[1]).To(HavePrefix("ratio to bare"))
		Expect(strings.Fields(table[2])).To(Equal([]string{"benchmark", "variant", "ns/op", "ratio", "cpu-ns/op", "ratio", "B/op", "allocs/op"}))
		// The median of three bare runs (100, 110, 300) is 110.
		Expect(strings.Fields(table[3])).To(Equal([]string{"MCP/read", "bare", "110", "1.00x", "50", "1.00x", "7000", "80"}))
		Expect(strings.Fields(table[4])).To(Equal([]string{"host", "440", "0.25x", "500", "0.10x", "320000", "340"}))
		// A case with other units gets its own header.
		Expect(table[5]).To(BeEmpty())
		Expect(strings.Fields(table[6])).To(Equal([]string{"benchmark", "variant", "ns/op", "ratio", "B/op", "allocs/op"}))
		Expect(strings.Fields(table[7])).To(Equal([]string{"MCP/401", "bare", "50", "1.00x", "7000", "80"}))
		Expect(strings.Fields(table[8])).To(Equal([]string{"host", "100", "0.50x", "13000", "190"}))
		Expect(table[9]).To(BeEmpty())
	})

	It("prints no table when no case has a bare variant", func() {
		input := "BenchmarkVerify-2   500000   900 ns/op\nPASS\n"
		out, _ := run(input)
		Expect(out).To(Equal(input))
	})

	DescribeTable("tells a failure apart so a pipe still fails",
		func(line string) {
			_, failed := run(benchOutput + line + "\n")
			Expect(failed).To(BeTrue())
		},
		Entry("a failed package", "FAIL\tgithub.com/conform-mcp/conform/impl/host\t1.2s"),
		Entry("a failed sub-benchmark", "    --- FAIL: BenchmarkMCP/read/host-2"),
		Entry("a panic", "panic: runtime error"),
	)
})
