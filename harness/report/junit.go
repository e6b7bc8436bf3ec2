package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/conform-mcp/conform/harness/outcome"
)

// JUnit renders the run as JUnit XML, the format GitLab, Jenkins and the
// GitHub Actions test reporters read: one testsuite per feature, one
// testcase per scenario. A departure that fails the run is a <failure>, a
// harness error an <error> (the suite's fault, not the host's), a scenario
// not run <skipped>. A scenario that passed although listed as an expected
// failure is a <failure> too, because it makes the run exit 1.
//
// A tolerated failure (a SHOULD without --strict, or a listed expected
// failure) does not fail the run, so it is no <failure>: each of those
// viewers counts a <failure> as a failed test and shows it red on a job that
// passed. It is <skipped> with the failure's one-line message, which all of
// them list and none shows red, and its whole explanation is its
// <system-out>, which Jenkins and GitLab show on the test's page. A passing
// test case would be as quiet, but would hide the departure in the list.
type JUnit struct{}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	File       string          `xml:"file,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	File      string        `xml:"file,attr"`
	Line      int           `xml:"line,attr"`
	Failure   *junitProblem `xml:"failure"`
	Error     *junitProblem `xml:"error"`
	Skipped   *junitSkipped `xml:"skipped"`
	SystemOut *junitOutput  `xml:"system-out"`
}

// junitOutput is CDATA, as a problem's body is.
type junitOutput struct {
	Text string `xml:",cdata"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	// Body is CDATA so that the exchanges stay legible in the file.
	Body string `xml:",cdata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// Write renders the run.
func (JUnit) Write(w io.Writer, run outcome.Run) error {
	all := junitSuites{Name: "conform"}
	var total time.Duration
	for _, f := range byFeature(run) {
		s := junitSuite{
			Name: f.Name,
			File: f.File,
			// The JUnit schema's timestamp has no zone; the run's start in UTC.
			Timestamp:  run.Started.UTC().Format("2006-01-02T15:04:05"),
			Properties: []junitProperty{{Name: "target", Value: run.Target}, {Name: "pack", Value: f.Pack}, {Name: "mcp_revision", Value: run.Revision}},
		}
		var took time.Duration
		for _, r := range f.Results {
			c := junitCase{
				Name:      r.Scenario,
				Classname: r.FeatureFile,
				Time:      seconds(r.Duration),
				File:      r.FeatureFile,
				Line:      r.Line,
			}
			body := xmlText(strings.Join(explain(run, r, wholeBodies), "\n"))
			switch {
			case r.Status == outcome.HarnessError:
				c.Error = &junitProblem{Message: "harness error: " + r.Reason, Type: "harness", Body: body}
				s.Errors++
			case stale(r):
				c.Failure = &junitProblem{Message: "listed as an expected failure, but it passed", Type: "stale-expected-failure", Body: body}
				s.Failures++
			case run.FailsRun(r):
				c.Failure = &junitProblem{Message: headline(run, r), Type: "departure", Body: body}
				s.Failures++
			case r.Status == outcome.Failed:
				c.Skipped = &junitSkipped{Message: headline(run, r)}
				c.SystemOut = &junitOutput{Text: body}
				s.Skipped++
			case r.Status == outcome.NotRun:
				c.Skipped = &junitSkipped{Message: r.Reason}
				s.Skipped++
			}
			s.Cases = append(s.Cases, c)
			took += r.Duration
		}
		s.Tests = len(s.Cases)
		s.Time = seconds(took)
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Errors += s.Errors
		all.Skipped += s.Skipped
		all.Suites = append(all.Suites, s)
		total += took
	}
	// The run's wall time, when known, includes what no scenario accounts for.
	all.Time = seconds(max(total, run.Duration))
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	return nil
}

// xmlText replaces what XML 1.0 cannot hold at all (most control characters,
// as in a binary response body). Attributes are cleaned by encoding/xml
// itself; CDATA is written as it is and needs this.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t', r == '\n', r == '\r',
			r >= 0x20 && r <= 0xD7FF,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}

// seconds is JUnit's time: decimal seconds.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%.3f", d.Seconds())
}
