package report_test

import (
	"bytes"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/report"
	"github.com/conform-mcp/conform/spec"
)

var _ = Describe("the order of sections (issue 24 item 10)", func() {
	// run has one passed scenario per feature file, in the order the runner
	// goes through them: by file name, so authorization_10 before
	// authorization_1_2 and authorization_9_2.
	run := func() outcome.Run {
		var rs []outcome.Result
		for _, f := range []struct{ file, name, section string }{
			{"authorization_10_refresh_tokens", "Refresh tokens", "authorization.10"},
			{"authorization_1_2_protocol_requirements", "Protocol requirements", "authorization.1.2"},
			{"authorization_9_2_token_handling", "Token handling", "authorization.9.2"},
			{"discovery_2_protected_resource_metadata", "Protected resource metadata", "discovery.2"},
		} {
			rs = append(rs, outcome.Result{
				Feature: f.name, FeatureFile: "features/mcp-authorization/" + f.file + ".feature", Pack: spec.Authorization,
				Scenario: "s", Status: outcome.Passed,
				Requirements: []spec.Requirement{{ID: "R-" + f.section, Section: f.section, Level: spec.Must, Text: "t"}},
			})
		}
		return outcome.Run{Target: "http://h/mcp", Pack: spec.Authorization, Results: rs}
	}
	want := []string{"Protocol requirements", "Token handling", "Refresh tokens", "Protected resource metadata"}

	// order is what each match of re captured, in order.
	order := func(w report.Writer, re string) []string {
		var b bytes.Buffer
		Expect(w.Write(&b, run())).To(Succeed())
		var out []string
		for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(b.String(), -1) {
			out = append(out, m[1])
		}
		return out
	}

	It("lists the features in the pretty output numerically", func() {
		Expect(order(report.Pretty{}, `(?m)^Feature: (.+?)  `)).To(Equal(want))
	})

	It("lists the features in the HTML page numerically, and the matrix's sections", func() {
		Expect(order(report.HTML{}, `<h3>Feature: (.+?) <span`)).To(Equal(want))
		Expect(order(report.HTML{}, `<tr><th scope="row">(authorization[^<]*|discovery[^<]*)</th>`)).To(Equal(
			[]string{"authorization.1.2", "authorization.9.2", "authorization.10", "discovery.2"}))
	})

	It("names the sections in the matrix with the pack's own words", func() {
		var b bytes.Buffer
		Expect(report.HTML{}.Write(&b, run())).To(Succeed())
		Expect(b.String()).To(ContainSubstring("Outcomes by section of the MCP specification"))
		Expect(b.String()).NotTo(ContainSubstring("source document"))
		Expect(b.String()).NotTo(ContainSubstring("source section"))
	})

	It("orders the source document's sections as numbers too", func() {
		r := outcome.Run{Pack: spec.Source}
		for _, sec := range []string{"10", "2", "7.10", "7.9"} {
			r.Results = append(r.Results, outcome.Result{Feature: "F", FeatureFile: "f.feature", Scenario: sec, Status: outcome.Passed,
				Requirements: []spec.Requirement{{ID: "R-1", Section: sec, Level: spec.Must, Text: "t"}}})
		}
		var b bytes.Buffer
		Expect(report.HTML{}.Write(&b, r)).To(Succeed())
		var got []string
		for _, m := range regexp.MustCompile(`<tr><th scope="row">([0-9.]+)</th>`).FindAllStringSubmatch(b.String(), -1) {
			got = append(got, m[1])
		}
		Expect(got).To(Equal([]string{"2", "7.9", "7.10", "10"}))
	})
})
