package report_test

import (
	"bytes"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/report"
	"github.com/conform-mcp/conform/harness/wire"
	"github.com/conform-mcp/conform/spec"
)

// failingRun has n MUST failures of one requirement, each showing the same
// large tools/list reply, and n scenarios not run for one reason.
func failingRun(n int, body string) outcome.Run {
	req := spec.Requirement{ID: "SVC-2", Section: "1", Level: spec.Must, Text: "t"}
	listed := wire.Exchange{Method: "POST", URL: "http://h/mcp", Status: 200, ResponseBody: body}
	run := outcome.Run{Target: "http://h"}
	for i := range n {
		run.Results = append(run.Results,
			outcome.Result{Feature: "F", FeatureFile: "f.feature", Scenario: "fails " + strings.Repeat("i", i+1), Line: 10 + i,
				Requirements: []spec.Requirement{req}, Status: outcome.Failed, Departure: outcome.Departf("c", 1, 2, listed)},
			outcome.Result{Feature: "F", FeatureFile: "f.feature", Scenario: "skipped " + strings.Repeat("i", i+1), Line: 100 + i,
				Status: outcome.NotRun, Reason: "the profile names no peer (key peer.target)"})
	}
	return run
}

var _ = Describe("the text formats at a terminal", func() {
	It("cut each body, so a failing host's large replies do not flood the output", func() {
		body := `{"tools":[` + strings.Repeat(`{"name":"a_tool","description":"é"},`, 10000) + `]}`
		run := failingRun(20, body)
		for _, w := range []report.Writer{report.Pretty{}, report.NewProgress(&bytes.Buffer{}, false)} {
			var b bytes.Buffer
			Expect(w.Write(&b, run)).To(Succeed())
			Expect(b.Len()).To(BeNumerically("<", 20<<10), "20 failures with a 370 KB body each")
			Expect(b.String()).To(ContainSubstring(" < {\"tools\":[{\"name\":\"a_tool\""))
			Expect(b.String()).To(MatchRegexp(`\n +< … 369\d\d\d bytes left out here; the html, json and junit reports have the whole exchange …\n +< `))
			Expect(b.String()).To(ContainSubstring("\"description\":\"é\"},]}\n"), "the end of the body is kept")
			Expect(strings.ToValidUTF8(b.String(), "?")).To(Equal(b.String()), "a cut never splits a character")
		}
		var b bytes.Buffer
		Expect(report.JUnit{}.Write(&b, run)).To(Succeed())
		Expect(b.String()).To(ContainSubstring(body), "JUnit keeps the whole exchange")
	})

	It("cut a body of many short lines to its first and last lines", func() {
		body := "event: first\n" + strings.Repeat("data: x\n", 50) + "event: last\n"
		var b bytes.Buffer
		Expect(report.Pretty{}.Write(&b, failingRun(1, body))).To(Succeed())
		Expect(b.String()).To(ContainSubstring("        <\n        < event: first\n        < data: x\n"))
		Expect(b.String()).To(ContainSubstring("        < data: x\n        < event: last\n"))
		Expect(strings.Count(b.String(), "< data: x")).To(Equal(6))
		Expect(b.String()).To(ContainSubstring("        < … 353 bytes left out here;"))
	})

	It("leave a body that fits whole", func() {
		body := `{"jsonrpc":"2.0","id":24,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"arguments":{"path":"/public/readme.md"},"name":"afs_read"}}`
		var b bytes.Buffer
		Expect(report.Pretty{}.Write(&b, failingRun(1, body))).To(Succeed())
		Expect(b.String()).To(ContainSubstring("        < " + body + "\n"))
		Expect(b.String()).NotTo(ContainSubstring("left out"))
	})

	It("end with the failed requirements, each with its level, count and first scenario", func() {
		run := failingRun(3, "x")
		run.Results = append(run.Results, outcome.Result{Feature: "F", FeatureFile: "g.feature", Scenario: "should", Line: 7,
			Requirements: []spec.Requirement{{ID: "T401-8", Section: "7.2", Level: spec.Should, Text: "t"}},
			Status:       outcome.Failed, Departure: outcome.Departf("c", 1, 2)})
		for _, w := range []report.Writer{report.Pretty{}, report.NewProgress(&bytes.Buffer{}, false)} {
			var b bytes.Buffer
			Expect(w.Write(&b, run)).To(Succeed())
			Expect(b.String()).To(ContainSubstring("\nFailed requirements (2):\n" +
				"  SVC-2   MUST    3 scenarios, first: fails i (f.feature:10)\n" +
				"  T401-8  SHOULD  1 scenario, tolerated, first: should (g.feature:7)\n"))
		}
	})

	It("say a reason shared by scenarios not run once, with its count", func() {
		run := failingRun(3, "x")
		run.Results = append(run.Results, outcome.Result{Feature: "F", FeatureFile: "f.feature", Scenario: "other", Line: 200,
			Status: outcome.NotRun, Reason: "needs the profile key paths.writable, which is empty"})
		for _, w := range []report.Writer{report.Pretty{}, report.NewProgress(&bytes.Buffer{}, false)} {
			var b bytes.Buffer
			Expect(w.Write(&b, run)).To(Succeed())
			Expect(strings.Count(b.String(), "the profile names no peer")).To(Equal(1))
			Expect(b.String()).To(ContainSubstring("\nReasons for scenarios not run:\n" +
				"  1) 3 scenarios not run: the profile names no peer (key peer.target)\n" +
				"     first: skipped i (f.feature:100)\n" +
				"  2) 1 scenario not run: needs the profile key paths.writable, which is empty\n" +
				"     first: other (f.feature:200)\n"))
		}
		var b bytes.Buffer
		Expect(report.Pretty{}.Write(&b, run)).To(Succeed())
		Expect(b.String()).To(ContainSubstring("  - skipped iii  not run (reason 1, below)\n"))
		Expect(b.String()).To(ContainSubstring("  - other  not run (reason 2, below)\n"))
	})

	It("add nothing to a run that only passed", func() {
		var b bytes.Buffer
		Expect(report.Pretty{}.Write(&b, singleRun(outcome.Result{Scenario: "s", Status: outcome.Passed}))).To(Succeed())
		Expect(b.String()).NotTo(ContainSubstring("Failed requirements"))
		Expect(b.String()).NotTo(ContainSubstring("not run"))
	})
})
