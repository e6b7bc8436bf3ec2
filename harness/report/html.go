package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/wire"
	"github.com/conform-mcp/conform/spec"
)

// HTML renders the run as one self-contained page (inline CSS, no scripts,
// no external assets) that a host author can open from a CI artifact: a
// header with the verdict; the failures in full, those that decide the exit
// code first; a matrix of the requirements checked (ID, level, section,
// verdict, links to the scenarios); outcomes by section of the pack's
// document (the source document, the MCP specification); then every
// scenario by feature. Steps show the values they sent, and JSON bodies are
// indented and wrapped so that no exchange runs off the page. html/template
// escapes every value, bodies included. Status is always written in words
// as well as shown in colour.
type HTML struct{}

// Write renders the run.
func (HTML) Write(w io.Writer, run outcome.Run) error {
	if err := htmlPage.Execute(w, newHTMLView(run)); err != nil {
		return fmt.Errorf("write html: %w", err)
	}
	return nil
}

type htmlView struct {
	Target, Pack, Revision, Started, Duration, Mode string
	// Document is what the pack's sections are sections of.
	Document                 string
	Exit, ExitClass, Summary string
	// Failures are the scenarios shown in full before everything else.
	Failures     []htmlScenario
	Requirements []requirementRow
	Matrix       []matrixRow
	Totals       matrixRow
	Features     []htmlFeature
}

// matrixRow counts outcomes of the scenarios that check one section.
type matrixRow struct {
	Section                                         string
	Passed, Failed, Tolerated, NotRun, HarnessError int
}

// FailedText shows how many failures are tolerated, so a red cell is never
// mistaken for one that decides the exit code when it does not.
func (m matrixRow) FailedText() string {
	if m.Tolerated == 0 {
		return strconv.Itoa(m.Failed)
	}
	return fmt.Sprintf("%d (%d tolerated)", m.Failed, m.Tolerated)
}

// FailedClass colours the failure cell: red only for failures that count.
func (m matrixRow) FailedClass() string {
	switch {
	case m.Failed > m.Tolerated:
		return "c-fail"
	case m.Failed > 0:
		return "c-warn"
	}
	return "c-zero"
}

type htmlFeature struct {
	Name, File, Pack string
	Scenarios        []htmlScenario
}

type htmlScenario struct {
	Name, IDs, Where   string
	Verdict, Class     string
	Requirements       []spec.Requirement
	Note               string
	Check              string
	Expected, Actual   string
	Exchanges          []htmlExchangeView
	Reason, FailedStep string
	Harness            bool
	Steps              []htmlStep
	// Anchor is the scenario's id in the list by feature; Failure its id
	// in the failures section, "" when it is not there.
	Anchor, Failure string
	// decisive is set for a failure that decides the exit code.
	decisive bool
}

// htmlStep is a step as it ran; Written is its text in the feature file
// when the step sent values in place of placeholders.
type htmlStep struct {
	Keyword, Text, Written, Status string
	Line                           int
}

func newHTMLView(run outcome.Run) htmlView {
	c := run.Tally()
	v := htmlView{
		Target:   run.Target,
		Pack:     run.Pack,
		Revision: revision(run),
		Started:  stamp(run.Started),
		Duration: span(run.Duration),
		Mode:     "default: SHOULD failures are tolerated",
		Document: document(run.Pack),
		Exit:     exitMeaning(run),
		Summary:  c.Summary(),
		Matrix:   sectionMatrix(run),
		Totals: matrixRow{Section: "All scenarios", Passed: c.Passed, Failed: c.Failed,
			Tolerated: c.Tolerated, NotRun: c.NotRun, HarnessError: c.HarnessErrors},
	}
	if run.Strict {
		v.Mode = "strict: SHOULD failures count"
	}
	switch run.ExitCode() {
	case outcome.ExitPassed:
		v.ExitClass = "passed"
	case outcome.ExitIncomplete:
		v.ExitClass = "notrun"
	default:
		v.ExitClass = "failed"
	}
	scenarios := make([]htmlScenario, len(run.Results))
	links := make([]scenarioLink, len(run.Results))
	var tolerated []htmlScenario
	for i, r := range run.Results {
		s := newHTMLScenario(run, r)
		s.Anchor = fmt.Sprintf("scenario-%d", i+1)
		link := scenarioLink{Anchor: s.Anchor, Name: s.Name, Verdict: s.Verdict, Class: s.Class}
		if s.Class == "failed" || s.Class == "harness" || s.Class == "warn" {
			s.Failure = fmt.Sprintf("failure-%d", i+1)
			link.Anchor = s.Failure
			if s.decisive {
				v.Failures = append(v.Failures, s)
			} else {
				tolerated = append(tolerated, s)
			}
		}
		scenarios[i], links[i] = s, link
	}
	v.Failures = append(v.Failures, tolerated...)
	v.Requirements = requirementRows(run, links)
	for _, f := range byFeature(run) {
		hf := htmlFeature{Name: f.Name, File: f.File, Pack: f.Pack}
		for _, i := range f.Index {
			hf.Scenarios = append(hf.Scenarios, scenarios[i])
		}
		v.Features = append(v.Features, hf)
	}
	return v
}

func newHTMLScenario(run outcome.Run, r outcome.Result) htmlScenario {
	s := htmlScenario{
		Name:    r.Scenario,
		IDs:     requirementIDs(r),
		Where:   fmt.Sprintf("%s:%d", r.FeatureFile, r.Line),
		Verdict: verdict(run, r),
		// Everything that makes the run exit 1.
		decisive: run.FailsRun(r),
	}
	for _, st := range r.Steps {
		hs := htmlStep{Keyword: strings.TrimSpace(st.Keyword), Text: stepText(st), Status: st.Status, Line: st.Line}
		if st.Sent != "" {
			hs.Written = st.Text
		}
		s.Steps = append(s.Steps, hs)
	}
	if st, ok := failedStep(r); ok {
		s.FailedStep = stepLine(st)
	}
	switch {
	case stale(r):
		s.Class = "failed"
		s.Note = "Listed as an expected failure, but it passed: remove it from the expected-failures file."
	case r.Status == outcome.Passed:
		s.Class = "passed"
		if len(r.Observed) > 0 {
			s.Note = "Observed: " + strings.Join(r.Observed, "; ") + "."
		}
	case r.Status == outcome.NotRun:
		s.Class = "notrun"
		s.Reason = "Not run: " + r.Reason
	case r.Status == outcome.HarnessError:
		s.Class = "harness"
		// A target that stopped answering is no fault of the harness: its
		// reason says so, alone.
		s.Harness = !outcome.TargetLost(r)
		s.Reason = "Reason: " + r.Reason
	case r.Status == outcome.Failed:
		s.Class = "failed"
		s.Requirements = r.Requirements
		switch {
		case r.Expected:
			s.Class = "warn"
			s.Note = "Tolerated: listed as an expected failure."
		case run.Tolerated(r):
			s.Class = "warn"
			s.Note = "Tolerated: a SHOULD requirement decides the exit code only with --strict."
		}
		if d := r.Departure; d != nil {
			s.Check, s.Expected, s.Actual = d.Check, d.Expected, d.Actual
			for _, ex := range d.Exchanges {
				s.Exchanges = append(s.Exchanges, htmlExchange(ex))
			}
		} else {
			s.Reason = "No departure was recorded: " + r.Reason
		}
	}
	return s
}

// An exchange of more than foldLines lines or foldBytes bytes starts
// folded, its summary saying how long it is, so that a host's large
// tools/list reply does not push the next failure screens away. A JSON
// body longer than indentFrom bytes (a dozen wrapped lines) is indented to
// show its structure; a shorter one reads best wrapped as it came.
const (
	foldLines  = 40
	foldBytes  = 4 << 10
	indentFrom = 1 << 10
)

// htmlExchangeView is one exchange as the page shows it.
type htmlExchangeView struct {
	Text  string
	Lines int
	Open  bool
}

// htmlExchange renders an exchange for the page, with each long JSON body
// indented: a reply of many tools on one line is unreadable however it
// wraps. Any other body is shown as it came; the page wraps its long lines.
func htmlExchange(ex wire.Exchange) htmlExchangeView {
	ex.RequestBody = indentJSON(ex.RequestBody)
	ex.ResponseBody = indentJSON(ex.ResponseBody)
	text := strings.TrimRight(ex.String(), "\n")
	lines := strings.Count(text, "\n") + 1
	return htmlExchangeView{Text: text, Lines: lines, Open: lines <= foldLines && len(text) <= foldBytes}
}

func indentJSON(body string) string {
	trimmed := strings.TrimSpace(body)
	if len(trimmed) <= indentFrom || (!strings.HasPrefix(trimmed, "{") && !strings.HasPrefix(trimmed, "[")) {
		return body
	}
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(trimmed), "", "  "); err != nil {
		return body
	}
	return b.String()
}

// sectionMatrix counts outcomes per section of the requirements the
// scenarios check; a scenario checking several sections counts in each.
// Scenarios that name no requirement get a row of their own at the end.
func sectionMatrix(run outcome.Run) []matrixRow {
	rows := map[string]*matrixRow{}
	var untagged *matrixRow
	for _, r := range run.Results {
		sections := r.Sections()
		if len(sections) == 0 {
			if untagged == nil {
				untagged = &matrixRow{Section: "no requirement"}
			}
			count(untagged, run, r)
		}
		for _, sec := range sections {
			if rows[sec] == nil {
				rows[sec] = &matrixRow{Section: sec}
			}
			count(rows[sec], run, r)
		}
	}
	out := make([]matrixRow, 0, len(rows)+1)
	for _, m := range rows {
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b matrixRow) int { return spec.CompareSections(a.Section, b.Section) })
	if untagged != nil {
		out = append(out, *untagged)
	}
	return out
}

// document names what the pack's sections are sections of, in the pack's
// own words; a pack that cannot be loaded (no such pack) gets the general word.
func document(pack string) string {
	sp, err := spec.LoadPack(pack)
	if err != nil {
		return "specification"
	}
	return sp.Document
}

func count(m *matrixRow, run outcome.Run, r outcome.Result) {
	switch r.Status {
	case outcome.Passed:
		m.Passed++
	case outcome.Failed:
		m.Failed++
		if run.Tolerated(r) {
			m.Tolerated++
		}
	case outcome.NotRun:
		m.NotRun++
	case outcome.HarnessError:
		m.HarnessError++
	}
}

// size says how long a text is, in the unit a person reads it in.
func size(s string) string {
	if len(s) < 10<<10 {
		return fmt.Sprintf("%d bytes", len(s))
	}
	return fmt.Sprintf("%d KB", len(s)>>10)
}

// cellClass colours a count cell only when it is not zero.
func cellClass(n int, class string) string {
	if n == 0 {
		return "c-zero"
	}
	return class
}

var htmlPage = template.Must(template.New("report").Funcs(template.FuncMap{"cell": cellClass, "inc": func(i int) int { return i + 1 }, "bytes": size}).Parse(htmlSource))

// htmlSource is the page. Colours meet WCAG AA contrast for their text; each
// status also has its word, so colour is never the only signal.
const htmlSource = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conformance report: {{.Target}}</title>
<style>
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#fff;margin:0}
header,main{max-width:72rem;margin:0 auto;padding:1rem 1.5rem}
header{border-bottom:1px solid #d0d7de}
h1{font-size:1.6rem;margin:.2rem 0 .6rem}
h2{font-size:1.25rem;margin:1.6rem 0 .6rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem}
h3{font-size:1.05rem;margin:1.4rem 0 .4rem}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:0 0 .8rem}
.meta dt{font-weight:600}.meta dd{margin:0}
.verdict{font-size:1.05rem;margin:.4rem 0}
.summary{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;margin:.4rem 0}
.file,.where{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem;color:#57606a;font-weight:400}
table.matrix{border-collapse:collapse;min-width:32rem}
.matrix caption{text-align:left;color:#57606a;padding-bottom:.4rem}
.matrix th,.matrix td{border:1px solid #d0d7de;padding:.3rem .8rem}
.matrix td{text-align:right;font-variant-numeric:tabular-nums}
.matrix thead th{background:#f6f8fa}
.matrix tbody th,.matrix tfoot th{text-align:left}
.matrix tfoot{font-weight:600}
.c-zero{color:#57606a}
.c-pass{background:#dafbe1;color:#0f5323}
.c-fail{background:#ffebe9;color:#82071e;font-weight:600}
.c-warn{background:#fff8c5;color:#6f4b00}
.c-notrun{background:#fff8c5;color:#6f4b00}
.c-harness{background:#fbefff;color:#6e2c9e;font-weight:600}
.badge{display:inline-block;min-width:6.5rem;text-align:center;border-radius:.3rem;padding:0 .4rem;margin-right:.5rem;font-size:.8rem;font-weight:600;text-transform:uppercase;letter-spacing:.02em}
.b-passed{background:#1a7f37;color:#fff}
.b-failed{background:#cf222e;color:#fff}
.b-warn{background:#9a6700;color:#fff}
.b-notrun{background:#6e7781;color:#fff}
.b-harness{background:#8250df;color:#fff}
ul.scenarios{list-style:none;padding:0;margin:0}
li.scenario{padding:.35rem 0;border-top:1px solid #eaeef2}
.ids{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem;color:#0b4f9c}
.detail{margin:.4rem 0 .6rem 1rem;padding:.5rem .8rem;border-left:4px solid #d0d7de;background:#f6f8fa}
.d-failed{border-left-color:#cf222e}.d-warn{border-left-color:#9a6700}
.d-harness{border-left-color:#8250df}.d-notrun{border-left-color:#6e7781}
blockquote{margin:.3rem 0;padding:0 .8rem;border-left:3px solid #8c959f}
.req{font-weight:600}
dl.diff{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:.4rem 0}
dl.diff dt{font-weight:600}dl.diff dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap;overflow-wrap:anywhere}
pre{background:#fff;border:1px solid #d0d7de;padding:.5rem .7rem;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85rem;margin:.3rem 0}
article.failure{margin:.8rem 0 1.2rem}
article.failure h3{margin:.2rem 0 .4rem}
table.requirements{border-collapse:collapse;width:100%}
.requirements caption{text-align:left;color:#57606a;padding-bottom:.4rem}
.requirements th,.requirements td{border:1px solid #d0d7de;padding:.3rem .6rem;vertical-align:top;text-align:left}
.requirements thead th{background:#f6f8fa}
.requirements .rid{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:nowrap}
ul.links{list-style:none;margin:0;padding:0}
.back,.jump{font-size:.85rem;margin-left:.5rem}
a{color:#0b4f9c}
details{margin:.2rem 0 0 1rem}summary{cursor:pointer;color:#57606a}
details.exchange{margin:.3rem 0}details.exchange summary{color:#1f2328}
ol.steps{margin:.2rem 0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
</style>
</head>
<body>
<header>
<h1>Conformance report</h1>
<dl class="meta">
<dt>Target</dt><dd>{{.Target}}</dd>
<dt>Pack</dt><dd>{{.Pack}}</dd>
<dt>Protocol</dt><dd>{{.Revision}}</dd>
<dt>Started</dt><dd>{{.Started}}</dd>
<dt>Duration</dt><dd>{{.Duration}}</dd>
<dt>Mode</dt><dd>{{.Mode}}</dd>
</dl>
<p class="verdict"><span class="badge b-{{.ExitClass}}">Verdict</span>{{.Exit}}</p>
<p class="summary">{{.Summary}}</p>
</header>
<main>
<section aria-labelledby="failures-title">
<h2 id="failures-title">Failures ({{len .Failures}})</h2>
{{- if not .Failures}}
<p>No scenario failed.</p>
{{- end}}
{{- range .Failures}}
<article class="failure detail d-{{.Class}}" id="{{.Failure}}">
<h3><span class="badge b-{{.Class}}">{{.Verdict}}</span>{{.Name}}{{if .IDs}} <span class="ids">{{.IDs}}</span>{{end}} <span class="where">{{.Where}}</span></h3>
{{- if .Harness}}
<p><strong>Harness error:</strong> this is a fault in the harness, not a departure by the host.</p>
{{- end}}
{{- range .Requirements}}
<blockquote><p><span class="req">{{.ID}}</span>, section {{.Section}} ({{.Level}}): “{{.Text}}”</p></blockquote>
{{- end}}
{{- if .Note}}
<p>{{.Note}}</p>
{{- end}}
{{- if .Reason}}
<p>{{.Reason}}</p>
{{- end}}
{{- if .FailedStep}}
<p>At step: <code>{{.FailedStep}}</code></p>
{{- end}}
{{- if .Check}}
<dl class="diff">
<dt>Check</dt><dd>{{.Check}}</dd>
<dt>Expected</dt><dd>{{.Expected}}</dd>
<dt>Actual</dt><dd>{{.Actual}}</dd>
</dl>
{{- $n := len .Exchanges}}
{{- range $i, $ex := .Exchanges}}
<details class="exchange"{{if $ex.Open}} open{{end}}><summary>HTTP exchange {{inc $i}} of {{$n}} ({{$ex.Lines}} lines, {{bytes $ex.Text}})</summary>
<pre>{{$ex.Text}}</pre>
</details>
{{- end}}
{{- end}}
{{- template "steps" .Steps}}
<p class="back"><a href="#{{.Anchor}}">In its feature</a></p>
</article>
{{- end}}
</section>
<section aria-labelledby="requirements-title">
<h2 id="requirements-title">Requirements</h2>
<table class="requirements">
<caption>Each requirement a scenario of the run checks, failures first, with the scenarios that check it.</caption>
<thead>
<tr><th scope="col">Requirement</th><th scope="col">Level</th><th scope="col">Section</th><th scope="col">Verdict</th><th scope="col">Scenarios</th></tr>
</thead>
<tbody>
{{- range .Requirements}}
<tr class="r-{{.Class}}"><th scope="row" class="rid" title="{{.Text}}">{{.ID}}</th><td>{{.Level}}</td><td>{{.Section}}</td><td><span class="badge b-{{.Class}}">{{.Verdict}}</span></td><td><ul class="links">
{{- range .Scenarios}}
<li><a href="#{{.Anchor}}">{{.Name}}</a> <span class="where">{{.Verdict}}</span></li>
{{- end}}
</ul></td></tr>
{{- end}}
</tbody>
</table>
</section>
<section aria-labelledby="matrix-title">
<h2 id="matrix-title">Outcomes by section of the {{.Document}}</h2>
<table class="matrix">
<caption>Scenarios counted by the section of the {{.Document}} that the requirements they check come from. A scenario that checks several sections counts in each.</caption>
<thead>
<tr><th scope="col">Section</th><th scope="col">Passed</th><th scope="col">Failed</th><th scope="col">Not run</th><th scope="col">Harness error</th></tr>
</thead>
<tbody>
{{- range .Matrix}}
<tr><th scope="row">{{.Section}}</th><td class="{{cell .Passed "c-pass"}}">{{.Passed}}</td><td class="{{.FailedClass}}">{{.FailedText}}</td><td class="{{cell .NotRun "c-notrun"}}">{{.NotRun}}</td><td class="{{cell .HarnessError "c-harness"}}">{{.HarnessError}}</td></tr>
{{- end}}
</tbody>
<tfoot>
{{- with .Totals}}
<tr><th scope="row">{{.Section}}</th><td>{{.Passed}}</td><td>{{.FailedText}}</td><td>{{.NotRun}}</td><td>{{.HarnessError}}</td></tr>
{{- end}}
</tfoot>
</table>
</section>
<section aria-labelledby="scenarios-title">
<h2 id="scenarios-title">Scenarios</h2>
{{- range .Features}}
<section class="feature">
<h3>Feature: {{.Name}} <span class="file">{{.File}} (pack {{.Pack}})</span></h3>
<ul class="scenarios">
{{- range .Scenarios}}
<li class="scenario" id="{{.Anchor}}">
<span class="badge b-{{.Class}}">{{.Verdict}}</span><strong>{{.Name}}</strong>{{if .IDs}} <span class="ids">{{.IDs}}</span>{{end}} <span class="where">{{.Where}}</span>
{{- if .Failure}}
<a class="jump" href="#{{.Failure}}">details under Failures</a>
{{- else}}
{{- if or .Note .Reason}}
<div class="detail d-{{.Class}}">
{{- if .Note}}
<p>{{.Note}}</p>
{{- end}}
{{- if .Reason}}
<p>{{.Reason}}</p>
{{- end}}
</div>
{{- end}}
{{- template "steps" .Steps}}
{{- end}}
</li>
{{- end}}
</ul>
</section>
{{- end}}
</section>
</main>
</body>
</html>
{{- define "steps"}}
{{- if .}}
<details><summary>Steps</summary>
<ol class="steps">
{{- range .}}
<li{{if .Written}} title="as written: {{.Written}}"{{end}}>{{.Keyword}} {{.Text}} <span class="where">({{.Status}}, line {{.Line}})</span></li>
{{- end}}
</ol>
</details>
{{- end}}
{{- end}}
`
