package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/report"
)

var _ = Describe("Parse", func() {
	It("defaults to pretty on stdout", func() {
		outputs, err := report.Parse("", &bytes.Buffer{}, true)
		Expect(err).NotTo(HaveOccurred())
		Expect(outputs).To(Equal([]report.Output{{Name: "pretty", Writer: report.Pretty{Color: true}}}))
	})

	It("reads several formats, stdout ones without a path", func() {
		outputs, err := report.Parse("progress, junit:out/r.xml,cucumber:out/c.json,html:C:/r/report.html,json:out/r.json", &bytes.Buffer{}, false)
		Expect(err).NotTo(HaveOccurred())
		Expect(outputs).To(HaveLen(5))
		Expect(outputs[0].Name).To(Equal("progress"))
		Expect(outputs[0].Path).To(BeEmpty())
		Expect(outputs[0].Writer).To(BeAssignableToTypeOf(&report.Progress{}))
		Expect(outputs[1]).To(Equal(report.Output{Name: "junit", Path: "out/r.xml", Writer: report.JUnit{}}))
		Expect(outputs[2]).To(Equal(report.Output{Name: "cucumber", Path: "out/c.json", Writer: report.Cucumber{}}))
		Expect(outputs[3]).To(Equal(report.Output{Name: "html", Path: "C:/r/report.html", Writer: report.HTML{}}))
		Expect(outputs[4]).To(Equal(report.Output{Name: "json", Path: "out/r.json", Writer: report.JSON{}}))
	})

	DescribeTable("rejects a bad entry, naming it",
		func(spec, named string) {
			_, err := report.Parse(spec, &bytes.Buffer{}, false)
			Expect(err).To(MatchError(ContainSubstring(named)))
			Expect(err).To(MatchError(ContainSubstring("--format")))
		},
		Entry("unknown", "pretty,tap", `unknown format "tap"`),
		Entry("file missing", "junit", `"junit": junit needs a file`),
		Entry("file empty", "html:", `"html:": html needs a file`),
		Entry("json without a file", "json", `"json": json needs a file`),
		Entry("stdout with a file", "pretty:out.txt", `"pretty:out.txt": pretty writes to standard output`),
		Entry("empty entry", "pretty,,progress", "empty entry"),
		Entry("same file twice", "junit:r.xml,cucumber:./r.xml", `"cucumber:./r.xml": junit already writes ./r.xml`),
		Entry("pretty twice", "pretty,junit:r.xml,pretty", `names pretty twice`),
	)

	DescribeTable("lets pretty and progress share standard output without interleaving",
		func(spec string) {
			var stdout bytes.Buffer
			outputs, err := report.Parse(spec, &stdout, false)
			Expect(err).NotTo(HaveOccurred())
			run := fixtureRun()
			live := report.LiveAll(outputs)
			for _, r := range run.Results {
				live.ScenarioFinished(r)
			}
			Expect(report.WriteAll(outputs, &stdout, run)).To(Succeed())
			Expect(stdout.String()).To(Equal(".FE~-.~.\n" + render(report.Pretty{})))
		},
		Entry("pretty first", "pretty,progress"),
		Entry("progress first", "progress,pretty"),
	)
})

var _ = Describe("WriteAll", func() {
	It("writes every output, creating parent directories", func() {
		dir := GinkgoT().TempDir()
		junit := filepath.Join(dir, "a", "b", "junit.xml")
		page := filepath.Join(dir, "report.html")
		var stdout bytes.Buffer
		outputs, err := report.Parse("pretty,junit:"+junit+",html:"+page, &stdout, false)
		Expect(err).NotTo(HaveOccurred())
		Expect(report.WriteAll(outputs, &stdout, fixtureRun())).To(Succeed())

		Expect(stdout.String()).To(Equal(render(report.Pretty{})))
		Expect(os.ReadFile(junit)).To(Equal([]byte(render(report.JUnit{}))))
		Expect(os.ReadFile(page)).To(Equal([]byte(render(report.HTML{}))))
	})

	It("writes the other outputs when one fails, and returns the first error", func() {
		dir := GinkgoT().TempDir()
		blocker := filepath.Join(dir, "file")
		Expect(os.WriteFile(blocker, nil, 0o644)).To(Succeed())
		good := filepath.Join(dir, "ok.json")
		var stdout bytes.Buffer
		outputs, err := report.Parse("junit:"+filepath.Join(blocker, "junit.xml")+",html:"+filepath.Join(blocker, "x", "r.html")+",cucumber:"+good, &stdout, false)
		Expect(err).NotTo(HaveOccurred())
		err = report.WriteAll(outputs, &stdout, fixtureRun())
		Expect(err).To(MatchError(HavePrefix("junit report: ")))
		Expect(os.ReadFile(good)).To(Equal([]byte(render(report.Cucumber{}))))
	})
})

// recorder is a Live that remembers what it was told.
type recorder struct{ events []string }

func (r *recorder) ScenarioStarted(res outcome.Result) {
	r.events = append(r.events, "start "+res.Scenario)
}
func (r *recorder) ScenarioFinished(res outcome.Result) {
	r.events = append(r.events, "end "+res.Scenario)
}
func (r *recorder) Waiting(what string, d time.Duration) {
	r.events = append(r.events, "wait "+what+" "+d.String())
}

// liveWriter is a Writer that also takes live progress.
type liveWriter struct {
	*recorder
	report.JUnit
}

var _ = Describe("LiveAll", func() {
	It("forwards live progress to every output that takes it", func() {
		var stdout bytes.Buffer
		rec := &recorder{}
		outputs := []report.Output{
			{Name: "pretty", Writer: report.Pretty{}},
			{Name: "progress", Writer: report.NewProgress(&stdout, false)},
			{Name: "custom", Path: "x", Writer: liveWriter{recorder: rec}},
		}
		live := report.LiveAll(outputs)
		r := outcome.Result{Scenario: "s", Status: outcome.Failed}
		live.ScenarioStarted(r)
		live.Waiting("the window", time.Minute)
		live.ScenarioFinished(r)
		Expect(stdout.String()).To(Equal("waiting 1m0s: the window\nF"))
		Expect(rec.events).To(Equal([]string{"start s", "wait the window 1m0s", "end s"}))
	})

	It("is harmless when no output takes live progress", func() {
		live := report.LiveAll([]report.Output{{Name: "pretty", Writer: report.Pretty{}}})
		Expect(func() {
			live.ScenarioStarted(outcome.Result{})
			live.Waiting("x", time.Second)
			live.ScenarioFinished(outcome.Result{})
		}).NotTo(Panic())
	})
})
