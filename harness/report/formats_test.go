package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/report"
	"github.com/conform-mcp/conform/harness/wire"
	"github.com/conform-mcp/conform/spec"
)

// tolerable is a failure of a SHOULD requirement, listed as an expected
// failure when expected is true.
func tolerable(expected bool) outcome.Result {
	return outcome.Result{Status: outcome.Failed, Expected: expected, Departure: outcome.Departf("c", 1, 2),
		Requirements: []spec.Requirement{{ID: "T401-8", Section: "7.2", Level: spec.Should, Text: "t"}}}
}

// singleRun is a run of one result, for checks about one outcome at a time.
func singleRun(r outcome.Result) outcome.Run {
	r.Feature, r.FeatureFile = "Single", "features/single.feature"
	return outcome.Run{Target: "http://host.test", Results: []outcome.Result{r}}
}

var _ = Describe("pretty", func() {
	It("ends with the summary line alone, after the exit meaning", func() {
		lines := strings.Split(strings.TrimSuffix(render(report.Pretty{}), "\n"), "\n")
		Expect(lines[len(lines)-1]).To(Equal(fixtureRun().Tally().Summary()))
		Expect(lines[len(lines)-1]).To(HavePrefix("3 passed, 3 failed"))
		Expect(lines[len(lines)-2]).To(HavePrefix("exit 1: "))
	})

	It("writes colour only when asked", func() {
		Expect(render(report.Pretty{})).NotTo(ContainSubstring("\x1b["))
		coloured := render(report.Pretty{Color: true})
		Expect(coloured).To(ContainSubstring("\x1b[31m✗\x1b[0m"))
		lines := strings.Split(strings.TrimSuffix(coloured, "\n"), "\n")
		Expect(lines[len(lines)-1]).NotTo(ContainSubstring("\x1b["), "CI tooling reads the summary line")
	})

	DescribeTable("says what the exit code means",
		func(results []outcome.Status, want string) {
			run := outcome.Run{}
			for _, st := range results {
				run.Results = append(run.Results, outcome.Result{Feature: "F", FeatureFile: "f.feature", Scenario: "s", Status: st})
			}
			var b bytes.Buffer
			Expect(report.Pretty{}.Write(&b, run)).To(Succeed())
			Expect(b.String()).To(ContainSubstring("\n" + want + "\n"))
		},
		Entry("all passed", []outcome.Status{outcome.Passed}, "exit 0: every selected scenario ran and passed"),
		Entry("some not run", []outcome.Status{outcome.Passed, outcome.NotRun}, "exit 3: incomplete, nothing failed but 1 scenario could not run"),
		Entry("nothing ran", []outcome.Status{outcome.NotRun, outcome.NotRun}, "exit 3: incomplete, no scenario ran"),
		Entry("empty run", nil, "exit 3: incomplete, no scenario ran"),
		Entry("failures", []outcome.Status{outcome.Failed, outcome.Failed}, "exit 1: failed, 2 failures count against the host"),
		Entry("harness errors", []outcome.Status{outcome.HarnessError}, "exit 1: failed, 1 harness error"),
	)

	DescribeTable("agrees with the exit code when the only failures are tolerated (issue 24 item 2)",
		func(strict bool, results []outcome.Result, meaning, summary string) {
			run := outcome.Run{Strict: strict}
			for _, r := range results {
				r.Feature, r.FeatureFile, r.Scenario = "F", "f.feature", "s"
				run.Results = append(run.Results, r)
			}
			var b bytes.Buffer
			Expect(report.Pretty{}.Write(&b, run)).To(Succeed())
			Expect(b.String()).To(HaveSuffix("\n" + meaning + "\n" + summary + "\n"))
			b.Reset()
			Expect(report.NewProgress(&bytes.Buffer{}, false).Write(&b, run)).To(Succeed())
			Expect(b.String()).To(HaveSuffix("\n" + meaning + "\n" + summary + "\n"))
		},
		Entry("SHOULD failures", false, []outcome.Result{tolerable(false), tolerable(false)},
			"exit 0: every selected scenario ran, and no failure counts against the host (tolerated: 2 SHOULD failures, which count only with --strict)",
			"0 passed, 2 failed (2 tolerated)"),
		Entry("SHOULD failures under --strict", true, []outcome.Result{tolerable(false), tolerable(false)},
			"exit 1: failed, 2 failures count against the host", "0 passed, 2 failed"),
		Entry("a listed expected failure and a SHOULD failure", false, []outcome.Result{tolerable(true), tolerable(false)},
			"exit 0: every selected scenario ran, and no failure counts against the host (tolerated: 1 SHOULD failure, which counts only with --strict; 1 listed expected failure)",
			"0 passed, 2 failed (2 tolerated)"),
		Entry("a SHOULD failure beside a scenario not run", false, []outcome.Result{tolerable(false), {Status: outcome.NotRun, Reason: "r"}},
			"exit 3: incomplete, 1 scenario could not run, and no failure counts against the host (tolerated: 1 SHOULD failure, which counts only with --strict)",
			"0 passed, 1 failed (1 tolerated), 1 not run"),
	)

	It("shows what a passed scenario observed of the choices the source leaves open", func() {
		var b bytes.Buffer
		run := singleRun(outcome.Result{Scenario: "s", Status: outcome.Passed, Observed: []string{`the host took the device grant as "device_code"`}})
		Expect(report.Pretty{}.Write(&b, run)).To(Succeed())
		Expect(b.String()).To(ContainSubstring(`observed: the host took the device grant as "device_code"`))
		b.Reset()
		Expect(report.HTML{}.Write(&b, run)).To(Succeed())
		Expect(b.String()).To(ContainSubstring("Observed: the host took the device grant as &#34;device_code&#34;."))
	})

	It("blames the harness, not the host, for a harness error", func() {
		var b bytes.Buffer
		run := singleRun(outcome.Result{Scenario: "s", Status: outcome.HarnessError, Reason: "boom"})
		Expect(report.Pretty{}.Write(&b, run)).To(Succeed())
		Expect(b.String()).To(ContainSubstring("a fault in the harness, not a departure by the host"))
		Expect(b.String()).To(ContainSubstring("reason: boom"))
	})

	It("shows the step that failed with the values it sent, not its placeholders", func() {
		r := outcome.Result{Scenario: "s", Status: outcome.Failed, Departure: outcome.Departf("c", 1, 2),
			Steps: []outcome.Step{{Keyword: "When ", Text: "the caller calls {tools.read} on {paths.open}",
				Sent: "the caller calls afs_read on /public/readme.md", Line: 3, Status: "failed"}}}
		for _, w := range []report.Writer{report.Pretty{}, report.JUnit{}} {
			var b bytes.Buffer
			Expect(w.Write(&b, singleRun(r))).To(Succeed())
			Expect(b.String()).To(ContainSubstring("at step: When the caller calls afs_read on /public/readme.md (line 3)"))
		}
	})

	It("counts a SHOULD failure under --strict", func() {
		r := outcome.Result{Scenario: "s", Status: outcome.Failed,
			Requirements: []spec.Requirement{{ID: "T401-8", Section: "7.2", Level: spec.Should, Text: "t"}},
			Departure:    outcome.Departf("c", 1, 2)}
		run := singleRun(r)
		run.Strict = true
		var b bytes.Buffer
		Expect(report.Pretty{}.Write(&b, run)).To(Succeed())
		Expect(b.String()).To(ContainSubstring("[T401-8]  FAILED"))
		Expect(b.String()).NotTo(ContainSubstring("tolerated"))
	})
})

var _ = Describe("progress", func() {
	It("prints a mark per finished scenario and a line per wait, and does not repeat them", func() {
		var live bytes.Buffer
		p := report.NewProgress(&live, false)
		run := fixtureRun()
		for i, r := range run.Results {
			p.ScenarioStarted(r)
			p.ScenarioFinished(r)
			if i == 1 {
				p.Waiting("the device code to expire", 5*time.Minute)
			}
		}
		// The SHOULD failure and the listed expected failure are tolerated.
		Expect(live.String()).To(Equal(".F\nwaiting 5m0s: the device code to expire\nE~-.~."))

		var end bytes.Buffer
		Expect(p.Write(&end, run)).To(Succeed())
		Expect(end.String()).To(HavePrefix("\n\n1) Authentication: An unknown tool answers 401"))
		Expect(end.String()).To(HaveSuffix("\n" + run.Tally().Summary() + "\n"))
	})

	It("lists what passed scenarios observed only when asked (issue 24 item 5)", func() {
		run := singleRun(outcome.Result{Scenario: "s", Status: outcome.Passed, Observed: []string{`the host took the device grant as "device_code"`}})
		var b bytes.Buffer
		Expect(report.NewProgress(&bytes.Buffer{}, false).Write(&b, run)).To(Succeed())
		Expect(b.String()).To(Equal(".\n\nexit 0: every selected scenario ran and passed\n1 passed, 0 failed\n"))

		b.Reset()
		p := report.NewProgress(&bytes.Buffer{}, false)
		p.Observed = true
		Expect(p.Write(&b, run)).To(Succeed())
		Expect(b.String()).To(ContainSubstring("1) Single: s  passed\n"))
		Expect(b.String()).To(ContainSubstring(`observed: the host took the device grant as "device_code"`))
	})

	It("marks a SHOULD failure as tolerated only without --strict (issue 24 item 2)", func() {
		var live bytes.Buffer
		p := report.NewProgress(&live, false)
		p.ScenarioFinished(tolerable(false))
		p.Strict = true
		p.ScenarioFinished(tolerable(false))
		Expect(live.String()).To(Equal("~F"))
	})

	It("wraps long runs of marks", func() {
		var b bytes.Buffer
		p := report.NewProgress(&b, false)
		for range 61 {
			p.ScenarioFinished(outcome.Result{Status: outcome.Passed})
		}
		Expect(b.String()).To(Equal(strings.Repeat(".", 60) + "\n."))
	})

	It("takes marks from concurrent scenarios without a race", func() {
		var b bytes.Buffer
		p := report.NewProgress(&b, false)
		done := make(chan struct{})
		for range 4 {
			go func() {
				defer GinkgoRecover()
				p.ScenarioFinished(outcome.Result{Status: outcome.NotRun})
				done <- struct{}{}
			}()
		}
		for range 4 {
			<-done
		}
		Expect(b.String()).To(Equal("----"))
	})
})

var _ = Describe("brief", func() {
	It("is the exit meaning and the summary line alone, as the text reports end", func() {
		var b bytes.Buffer
		Expect(report.Brief{}.Write(&b, fixtureRun())).To(Succeed())
		lines := strings.Split(strings.TrimSuffix(render(report.Pretty{}), "\n"), "\n")
		Expect(b.String()).To(Equal(lines[len(lines)-2] + "\n" + lines[len(lines)-1] + "\n"))
	})

	It("is for runs whose reports all go to files", func() {
		files, err := report.Parse("junit:a.xml,json:b.json", &bytes.Buffer{}, false)
		Expect(err).NotTo(HaveOccurred())
		Expect(report.OnlyFiles(files)).To(BeTrue())
		mixed, err := report.Parse("progress,junit:a.xml", &bytes.Buffer{}, false)
		Expect(err).NotTo(HaveOccurred())
		Expect(report.OnlyFiles(mixed)).To(BeFalse())
	})
})

// junitDoc is the part of the JUnit shape CI systems read.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name  string `xml:"name,attr"`
		Tests int    `xml:"tests,attr"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Time      string `xml:"time,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Type string `xml:"type,attr"`
				Body string `xml:",chardata"`
			} `xml:"error"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

var _ = Describe("junit", func() {
	It("parses as XML with one suite per feature and one case per scenario", func() {
		var doc junitDoc
		Expect(xml.Unmarshal([]byte(render(report.JUnit{})), &doc)).To(Succeed())
		Expect(doc.Tests).To(Equal(8))
		// The MUST failure and the stale expected failure; the tolerated
		// SHOULD and the listed expected failure are skipped beside the
		// scenario not run.
		Expect(doc.Failures).To(Equal(2))
		Expect(doc.Errors).To(Equal(1))
		Expect(doc.Skipped).To(Equal(3))
		Expect(doc.Suites).To(HaveLen(4))
		Expect(doc.Suites[0].Name).To(Equal("Authentication"))

		cases := doc.Suites[0].Cases
		Expect(cases).To(HaveLen(3))
		Expect(cases[0].Classname).To(Equal("features/5_authentication.feature"))
		Expect(cases[0].Failure).To(BeNil())
		Expect(cases[0].Time).To(Equal("0.012"))

		f := cases[1].Failure
		Expect(f).NotTo(BeNil())
		Expect(f.Type).To(Equal("departure"))
		Expect(f.Message).To(Equal("AUTH-5 T401-6: HTTP status: expected 401, actual 200"))
		Expect(f.Body).To(ContainSubstring(`AUTH-5, section 5, 7.2 (MUST): "For an anonymous caller`))
		Expect(f.Body).To(ContainSubstring("> Authorization: Bearer ****"))
		Expect(f.Body).To(ContainSubstring(`< <html><script>alert("x")</script> & </pre></html>`))

		Expect(cases[2].Error).NotTo(BeNil())
		Expect(cases[2].Error.Type).To(Equal("harness"))
		Expect(doc.Suites[1].Cases[1].Skipped).NotTo(BeNil())
		Expect(doc.Suites[1].Cases[1].Skipped.Message).To(Equal("the profile names no peer (key peer.target)"))
	})

	Describe("a failure of a SHOULD requirement (issue 24 item 2)", func() {
		should := outcome.Result{Scenario: "s", Status: outcome.Failed,
			Requirements: []spec.Requirement{{ID: "T401-8", Section: "7.2", Level: spec.Should, Text: "The 401 body is served as application/json."}},
			Departure:    outcome.Departf("401 Content-Type", "application/json", "text/plain")}
		write := func(run outcome.Run) junitDoc {
			var b bytes.Buffer
			Expect(report.JUnit{}.Write(&b, run)).To(Succeed())
			var doc junitDoc
			Expect(xml.Unmarshal(b.Bytes(), &doc)).To(Succeed())
			return doc
		}

		It("is skipped, not a failure, when tolerated, with its message and its explanation", func() {
			doc := write(singleRun(should))
			Expect(doc.Failures).To(BeZero())
			Expect(doc.Skipped).To(Equal(1))
			c := doc.Suites[0].Cases[0]
			Expect(c.Failure).To(BeNil())
			Expect(c.Skipped).NotTo(BeNil())
			Expect(c.Skipped.Message).To(Equal("tolerated (SHOULD, counted only with --strict): T401-8: 401 Content-Type: expected application/json, actual text/plain"))
			Expect(c.SystemOut).To(ContainSubstring(`T401-8, section 7.2 (SHOULD): "The 401 body is served as application/json."`))
			Expect(c.SystemOut).To(ContainSubstring("actual:   text/plain"))
		})

		It("is a failure under --strict", func() {
			run := singleRun(should)
			run.Strict = true
			doc := write(run)
			Expect(doc.Failures).To(Equal(1))
			Expect(doc.Skipped).To(BeZero())
			Expect(doc.Suites[0].Cases[0].Failure.Message).To(Equal("T401-8: 401 Content-Type: expected application/json, actual text/plain"))
		})
	})

	It("stays valid XML whatever a body holds", func() {
		r := outcome.Result{Scenario: `quote " and <tag>`, Status: outcome.Failed,
			Departure: outcome.Departf("body", "]]> end", "nul \x00 bell \x07 bad \xff")}
		var b bytes.Buffer
		Expect(report.JUnit{}.Write(&b, singleRun(r))).To(Succeed())
		var doc junitDoc
		Expect(xml.Unmarshal(b.Bytes(), &doc)).To(Succeed())
		body := doc.Suites[0].Cases[0].Failure.Body
		Expect(body).To(ContainSubstring("expected: ]]> end"))
		Expect(body).To(ContainSubstring("actual:   nul \uFFFD bell \uFFFD bad \uFFFD"))
		Expect(doc.Suites[0].Cases[0].Name).To(Equal(`quote " and <tag>`))
	})
})

// cucumberDoc is the standard Cucumber JSON shape.
type cucumberDoc []struct {
	URI      string `json:"uri"`
	ID       string `json:"id"`
	Name     string `json:"name"`
	Keyword  string `json:"keyword"`
	Elements []struct {
		ID      string `json:"id"`
		Keyword string `json:"keyword"`
		Name    string `json:"name"`
		Line    int    `json:"line"`
		Tags    []struct {
			Name string `json:"name"`
		} `json:"tags"`
		Before []cucumberHook `json:"before"`
		Steps  []struct {
			Keyword string         `json:"keyword"`
			Name    string         `json:"name"`
			Line    int            `json:"line"`
			Result  cucumberResult `json:"result"`
		} `json:"steps"`
		After []cucumberHook `json:"after"`
	} `json:"elements"`
}

type cucumberResult struct {
	Status       string `json:"status"`
	ErrorMessage string `json:"error_message"`
	Duration     *int64 `json:"duration"`
}

type cucumberHook struct {
	Result cucumberResult `json:"result"`
}

var _ = Describe("cucumber", func() {
	It("parses as the array-of-features shape", func() {
		var doc cucumberDoc
		Expect(json.Unmarshal([]byte(render(report.Cucumber{})), &doc)).To(Succeed())
		Expect(doc).To(HaveLen(4))
		f := doc[0]
		Expect(f.URI).To(Equal("features/5_authentication.feature"))
		Expect(f.Keyword).To(Equal("Feature"))
		Expect(f.ID).To(Equal("authentication"))
		Expect(f.Elements).To(HaveLen(3))

		failed := f.Elements[1]
		Expect(failed.Keyword).To(Equal("Scenario"))
		Expect(failed.ID).To(Equal("authentication;an-unknown-tool-answers-401-to-an-anonymous-caller"))
		Expect(failed.Line).To(Equal(19))
		Expect(failed.Tags[0].Name).To(Equal("@AUTH-5"))
		Expect(failed.Steps).To(HaveLen(3))
		Expect(failed.Steps[0].Keyword).To(Equal("Given "))
		Expect(*failed.Steps[0].Result.Duration).To(Equal((31 * time.Millisecond).Nanoseconds()))
		last := failed.Steps[2].Result
		Expect(last.Status).To(Equal("failed"))
		Expect(last.ErrorMessage).To(ContainSubstring("expected: 401\nactual:   200"))
		Expect(last.ErrorMessage).To(ContainSubstring("> Authorization: Bearer ****"))

		notRun := doc[1].Elements[1]
		Expect(notRun.Steps[0].Result.Status).To(Equal("skipped"))
		Expect(notRun.Steps[0].Result.ErrorMessage).To(Equal("not run: the profile names no peer (key peer.target)"))

		for _, feature := range doc {
			for _, e := range feature.Elements {
				for _, s := range e.Steps {
					Expect(s.Result.Duration).NotTo(BeNil(), "every step result has a duration")
				}
			}
		}
	})

	It("puts an outcome no step decided in a hook", func() {
		var b bytes.Buffer
		Expect(report.Cucumber{}.Write(&b, singleRun(outcome.Result{Scenario: "s", Status: outcome.NotRun, Reason: "no peer", Duration: time.Second}))).To(Succeed())
		var doc cucumberDoc
		Expect(json.Unmarshal(b.Bytes(), &doc)).To(Succeed())
		e := doc[0].Elements[0]
		Expect(e.Steps).To(BeEmpty())
		Expect(e.Before).To(HaveLen(1))
		Expect(e.Before[0].Result.Status).To(Equal("skipped"))
		Expect(e.Before[0].Result.ErrorMessage).To(Equal("not run: no peer"))
		Expect(*e.Before[0].Result.Duration).To(Equal(time.Second.Nanoseconds()))
	})

	It("renders an empty run as an empty array", func() {
		var b bytes.Buffer
		Expect(report.Cucumber{}.Write(&b, outcome.Run{})).To(Succeed())
		Expect(b.String()).To(Equal("[]\n"))
	})
})

var _ = Describe("html", func() {
	rowHeads := regexp.MustCompile(`<th scope="row">([^<]*)</th>`)

	It("lists the matrix rows by section in numeric order", func() {
		page := render(report.HTML{})
		var rows []string
		for _, m := range rowHeads.FindAllStringSubmatch(page, -1) {
			rows = append(rows, m[1])
		}
		Expect(rows).To(Equal([]string{"1", "5", "7.2", "7.3", "7.4", "8", "All scenarios"}))
	})

	It("orders 7.10 after 7.9 and 10 after 9, and gives scenarios without requirements a row", func() {
		run := outcome.Run{}
		for _, sec := range []string{"10", "7.10", "9", "7.9", ""} {
			r := outcome.Result{Feature: "F", FeatureFile: "f.feature", Scenario: sec, Status: outcome.Passed}
			if sec != "" {
				r.Requirements = []spec.Requirement{{ID: "X-1", Section: sec, Level: spec.Must}}
			}
			run.Results = append(run.Results, r)
		}
		var b bytes.Buffer
		Expect(report.HTML{}.Write(&b, run)).To(Succeed())
		var rows []string
		for _, m := range rowHeads.FindAllStringSubmatch(b.String(), -1) {
			rows = append(rows, m[1])
		}
		Expect(rows).To(Equal([]string{"7.9", "7.10", "9", "10", "no requirement", "All scenarios"}))
	})

	It("escapes every body, so no < from the host reaches the page", func() {
		page := render(report.HTML{})
		Expect(page).NotTo(ContainSubstring("<script"))
		Expect(page).NotTo(ContainSubstring("<html><"))
		Expect(page).To(ContainSubstring("&lt;html&gt;&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &lt;/pre&gt;&lt;/html&gt;"))
		Expect(page).To(ContainSubstring("Authorization: Bearer ****"))
	})

	DescribeTable("gives each requirement the verdict of its scenarios taken together",
		func(statuses []outcome.Status, level spec.Level, want string) {
			run := outcome.Run{}
			for _, st := range statuses {
				run.Results = append(run.Results, outcome.Result{Feature: "F", FeatureFile: "f.feature", Scenario: string(st), Status: st,
					Requirements: []spec.Requirement{{ID: "X-1", Section: "1", Level: level}}, Departure: outcome.Departf("c", 1, 2)})
			}
			var b bytes.Buffer
			Expect(report.HTML{}.Write(&b, run)).To(Succeed())
			Expect(b.String()).To(MatchRegexp(`<th scope="row" class="rid" title="">X-1</th><td>` + string(level) + `</td><td>1</td><td><span class="badge b-[a-z]+">` + regexp.QuoteMeta(want) + `</span>`))
		},
		Entry("all passed", []outcome.Status{outcome.Passed, outcome.Passed}, spec.Must, "passed"),
		Entry("one failed", []outcome.Status{outcome.Passed, outcome.Failed}, spec.Must, "FAILED"),
		Entry("a SHOULD failed", []outcome.Status{outcome.Passed, outcome.Failed}, spec.Should, "failed (tolerated)"),
		Entry("a harness error beside a tolerated failure", []outcome.Status{outcome.HarnessError, outcome.Failed}, spec.Should, "HARNESS ERROR"),
		Entry("some not run", []outcome.Status{outcome.Passed, outcome.NotRun, outcome.Passed}, spec.Must, "passed, 1 of 3 not run"),
		Entry("none run", []outcome.Status{outcome.NotRun}, spec.Must, "not run"),
	)

	It("lists the requirements failures first, then by section and by number", func() {
		run := outcome.Run{}
		for _, q := range []struct {
			id, section string
			st          outcome.Status
		}{{"SVC-10", "1", outcome.Passed}, {"SVC-9", "1, 5", outcome.Passed}, {"AUTH-2", "5", outcome.Failed}, {"RES-1", "2, 4", outcome.NotRun}, {"SVC-7", "1, 4", outcome.Passed}} {
			run.Results = append(run.Results, outcome.Result{Feature: "F", FeatureFile: "f.feature", Scenario: q.id, Status: q.st,
				Requirements: []spec.Requirement{{ID: q.id, Section: q.section, Level: spec.Must}}, Departure: outcome.Departf("c", 1, 2)})
		}
		var b bytes.Buffer
		Expect(report.HTML{}.Write(&b, run)).To(Succeed())
		var ids []string
		for _, m := range regexp.MustCompile(`class="rid" title="">([^<]+)<`).FindAllStringSubmatch(b.String(), -1) {
			ids = append(ids, m[1])
		}
		Expect(ids).To(Equal([]string{"AUTH-2", "RES-1", "SVC-7", "SVC-9", "SVC-10"}))
	})

	It("indents a long JSON body and leaves a short one on its line", func() {
		long := `{"tools":[` + strings.Repeat(`{"name":"t"},`, 100) + `{"name":"u"}]}`
		r := outcome.Result{Scenario: "s", Status: outcome.Failed, Departure: outcome.Departf("c", 1, 2,
			wire.Exchange{Method: "POST", URL: "http://h/mcp", RequestBody: `{"id":1}`, Status: 200, ResponseBody: long})}
		var b bytes.Buffer
		Expect(report.HTML{}.Write(&b, singleRun(r))).To(Succeed())
		Expect(b.String()).To(ContainSubstring("&gt; {&#34;id&#34;:1}\n"))
		Expect(b.String()).To(MatchRegexp(`<details class="exchange"><summary>HTTP exchange 1 of 1 \(312 lines, \d{4} bytes\)</summary>`), "folded: long")
		Expect(b.String()).To(ContainSubstring("&lt; {\n&lt;   &#34;tools&#34;: [\n&lt;     {\n&lt;       &#34;name&#34;: &#34;t&#34;\n"))
	})

	It("is self-contained and says each status in words", func() {
		page := render(report.HTML{})
		Expect(page).NotTo(MatchRegexp(`(?i)<(script|link|img)\b`))
		Expect(page).NotTo(ContainSubstring("src="))
		Expect(page).To(ContainSubstring(`<th scope="col">Not run</th>`))
		for _, word := range []string{">passed<", ">FAILED<", ">not run<", ">HARNESS ERROR<", ">failed (tolerated: SHOULD)<"} {
			Expect(page).To(ContainSubstring(word))
		}
	})
})

// jsonDoc is the part of the JSON report a program reads.
type jsonDoc struct {
	Pack      string `json:"pack"`
	ExitCode  int    `json:"exit_code"`
	Started   string `json:"started"`
	Counts    map[string]int
	Scenarios []struct {
		ID           string `json:"id"`
		Pack         string `json:"pack"`
		Outcome      string `json:"outcome"`
		FailsRun     bool   `json:"fails_run"`
		Reason       string `json:"reason"`
		Requirements []struct {
			ID    string `json:"id"`
			Level string `json:"level"`
		} `json:"requirements"`
		Departure *struct {
			Check, Expected, Actual string
		} `json:"departure"`
		Exchanges []struct {
			Method       string `json:"method"`
			Status       int    `json:"status"`
			ResponseBody string `json:"response_body"`
		} `json:"exchanges"`
	} `json:"scenarios"`
}

var _ = Describe("json", func() {
	It("has one object per scenario with its pack, requirements, outcome, reason and exchanges", func() {
		var doc jsonDoc
		Expect(json.Unmarshal([]byte(render(report.JSON{})), &doc)).To(Succeed())
		Expect(doc.Pack).To(Equal("source"))
		Expect(doc.ExitCode).To(Equal(1))
		Expect(doc.Started).To(Equal("2026-03-14T09:26:53Z"))
		Expect(doc.Counts).To(HaveKeyWithValue("not_run", 1))
		Expect(doc.Scenarios).To(HaveLen(8))

		failed := doc.Scenarios[1]
		Expect(failed.ID).To(Equal("features/5_authentication.feature: An unknown tool answers 401 to an anonymous caller"))
		Expect(failed.Pack).To(Equal("source"))
		Expect(failed.Outcome).To(Equal("failed"))
		Expect(failed.FailsRun).To(BeTrue())
		Expect(failed.Requirements).To(HaveLen(2))
		Expect(failed.Requirements[0].ID).To(Equal("AUTH-5"))
		Expect(failed.Requirements[0].Level).To(Equal("MUST"))
		Expect(failed.Departure.Check).To(Equal("HTTP status"))
		Expect(failed.Departure.Expected).To(Equal("401"))
		Expect(failed.Exchanges).To(HaveLen(2))
		Expect(failed.Exchanges[1].ResponseBody).To(Equal(`<html><script>alert("x")</script> & </pre></html>`), "bodies are whole and unescaped")

		Expect(doc.Scenarios[2].Outcome).To(Equal("harness_error"))
		Expect(doc.Scenarios[2].FailsRun).To(BeTrue())
		tolerated := doc.Scenarios[3]
		Expect(tolerated.Requirements[0].Level).To(Equal("SHOULD"))
		Expect(tolerated.FailsRun).To(BeFalse())
		notRun := doc.Scenarios[4]
		Expect(notRun.Outcome).To(Equal("not_run"))
		Expect(notRun.Reason).To(Equal("the profile names no peer (key peer.target)"))
		Expect(notRun.Exchanges).NotTo(BeNil())
		Expect(doc.Scenarios[7].FailsRun).To(BeTrue(), "an expected failure that passes fails the run")
	})

	It("renders an empty run with an empty list of scenarios", func() {
		var b bytes.Buffer
		Expect(report.JSON{}.Write(&b, outcome.Run{})).To(Succeed())
		Expect(b.String()).To(ContainSubstring(`"scenarios": []`))
	})
})
