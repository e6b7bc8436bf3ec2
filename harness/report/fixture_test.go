package report_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/wire"
	"github.com/conform-mcp/conform/spec"
)

// The requirements are written out here rather than loaded from
// requirements.yaml, so that rewording a requirement does not change the
// golden files of the report formats.
var (
	reqSVC2 = spec.Requirement{ID: "SVC-2", Section: "1", Level: spec.Must,
		Text: "Agents discover tools with tools/list and call them with tools/call."}
	reqAUTH3 = spec.Requirement{ID: "AUTH-3", Section: "5", Level: spec.Must,
		Text: "Anonymous callers may use only initialize, tools/list, resources/list, prompts/list, and tools/call for tools on the allowlist."}
	reqAUTH2 = spec.Requirement{ID: "AUTH-2", Section: "5, 7.2", Level: spec.Must,
		Text: "A credential is bound to the host instance that issued it; a credential issued by a different host instance is rejected."}
	reqAUTH5 = spec.Requirement{ID: "AUTH-5", Section: "5, 7.2", Level: spec.Must,
		Text: "For an anonymous caller an unknown tool name is answered with HTTP 401, the same as a privileged tool; a name seen in tools/list that answers 401 is a privileged tool."}
	reqT4016 = spec.Requirement{ID: "T401-6", Section: "7.2", Level: spec.Must,
		Text: "A method not on the anonymous allowlist, including an unknown tool name when anonymous, answers 401."}
	reqT4017 = spec.Requirement{ID: "T401-7", Section: "7.2", Level: spec.Must,
		Text: "A credential that is malformed, unknown, or issued by a different host instance answers 401."}
	reqT4018 = spec.Requirement{ID: "T401-8", Section: "7.2", Level: spec.Should,
		Text: "The 401 body is served as application/json."}
	reqOAUTH6 = spec.Requirement{ID: "OAUTH-6", Section: "7.3, 8", Level: spec.Must,
		Text: "A device code is valid for five minutes; after that the token endpoint answers invalid_grant."}
	reqAFS5 = spec.Requirement{ID: "AFS-5", Section: "7.4", Level: spec.Must,
		Text: "An operation the provider does not implement answers isError true with AFS_NOT_SUPPORTED."}
	reqAFS1 = spec.Requirement{ID: "AFS-1", Section: "7.4", Level: spec.Must,
		Text: "A path closed to network clients answers isError true with AFS_FORBIDDEN."}
)

const (
	authFile = "features/5_authentication.feature"
	t401File = "features/7_2_transport_failure.feature"
	flowFile = "features/7_3_authorization_flow.feature"
	callFile = "features/7_4_in_call_failures.feature"
)

// steps gives a scenario at line `at` three steps with the given statuses.
// The second names the tool by placeholder; once run, it has sent a value.
func steps(at int, statuses ...string) []outcome.Step {
	texts := []struct{ kw, text, sent string }{
		{"Given ", "an anonymous caller", ""},
		{"When ", "the caller calls {tools.unknown} on {paths.open}", "the caller calls no_such_tool on /public/readme.md"},
		{"Then ", "the response status is 401", ""},
	}
	out := make([]outcome.Step, len(statuses))
	for i, st := range statuses {
		out[i] = outcome.Step{Keyword: texts[i].kw, Text: texts[i].text, Line: at + 1 + i, Status: st}
		if st != "skipped" {
			out[i].Sent = texts[i].sent
		}
	}
	return out
}

// longToolsList is a tools/list reply of a dozen tools on one line, as
// hosts send it: long enough that the text formats cut it.
func longToolsList() string {
	tools := make([]string, 12)
	for i := range tools {
		tools[i] = fmt.Sprintf(`{"name":"afs_tool_%02d","description":"Tool number %d of the fixture host.","inputSchema":{"type":"object"}}`, i+1, i+1)
	}
	return `{"jsonrpc":"2.0","id":1,"result":{"tools":[` + strings.Join(tools, ",") + `]}}`
}

// fixtureRun has one of every outcome a report must show: a pass, a MUST
// failure with two exchanges (a long tools/list reply, and one with a masked
// Authorization header and a body that looks like markup), a tolerated SHOULD failure, a scenario not
// run, a harness error, an expected failure, and an expected failure that
// now passes.
func fixtureRun() outcome.Run {
	listed := wire.Exchange{
		Method:         "POST",
		URL:            "http://127.0.0.1:8080/mcp",
		RequestHeader:  map[string][]string{"Content-Type": {"application/json"}},
		RequestBody:    `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		Status:         200,
		ResponseHeader: map[string][]string{"Content-Type": {"application/json"}},
		ResponseBody:   longToolsList(),
	}
	called := wire.Exchange{
		Method:         "POST",
		URL:            "http://127.0.0.1:8080/mcp",
		RequestHeader:  map[string][]string{"Authorization": {"Bearer " + wire.Masked}, "Content-Type": {"application/json"}},
		RequestBody:    `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
		Status:         200,
		ResponseHeader: map[string][]string{"Content-Type": {"text/html; charset=utf-8"}},
		ResponseBody:   `<html><script>alert("x")</script> & </pre></html>`,
	}
	plain401 := wire.Exchange{
		Method:         "POST",
		URL:            "http://127.0.0.1:8080/mcp",
		RequestBody:    `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"afs_write","arguments":{"path":"/public/x"}}}`,
		Status:         401,
		ResponseHeader: map[string][]string{"Content-Type": {"text/plain; charset=utf-8"}, "Www-Authenticate": {`Bearer resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource"`}},
		ResponseBody:   `{"error":"Unauthorized"}`,
	}
	return outcome.Run{
		Target:   "http://127.0.0.1:8080",
		Pack:     "source",
		Revision: "2026-07-28",
		Started:  time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC),
		Duration: 4200 * time.Millisecond,
		Results: []outcome.Result{
			{
				ID: authFile + ": Anonymous tools/list answers 200", StableID: "SVC-2/anonymous-tools-list-answers-200",
				Feature: "Authentication", Pack: "source", FeatureFile: authFile,
				Scenario: "Anonymous tools/list answers 200", Line: 8, Tags: []string{"@SVC-2", "@AUTH-3"},
				Requirements: []spec.Requirement{reqSVC2, reqAUTH3}, Status: outcome.Passed,
				Steps: steps(8, "passed", "passed", "passed"), Duration: 12 * time.Millisecond,
			},
			{
				ID: authFile + ": An unknown tool answers 401 to an anonymous caller", Feature: "Authentication", Pack: "source", FeatureFile: authFile,
				Scenario: "An unknown tool answers 401 to an anonymous caller", Line: 19, Tags: []string{"@AUTH-5", "@T401-6"},
				Requirements: []spec.Requirement{reqAUTH5, reqT4016}, Status: outcome.Failed,
				Departure: outcome.Departf("HTTP status", 401, 200, listed, called),
				Steps:     steps(19, "passed", "passed", "failed"), Duration: 31 * time.Millisecond,
			},
			{
				ID: authFile + ": A credential from another instance is refused", Feature: "Authentication", Pack: "source", FeatureFile: authFile,
				Scenario: "A credential from another instance is refused", Line: 30, Tags: []string{"@AUTH-2", "@peer"},
				Requirements: []spec.Requirement{reqAUTH2}, Status: outcome.HarnessError,
				Reason: "start peer host: listen tcp 127.0.0.1:0: socket: too many open files",
				Steps:  steps(30, "failed", "skipped", "skipped"), Duration: 3 * time.Millisecond,
			},
			{
				ID: t401File + ": The 401 body is served as JSON", Feature: "Transport failure: 401 on /mcp", Pack: "source", FeatureFile: t401File,
				Scenario: "The 401 body is served as JSON", Line: 12, Tags: []string{"@T401-8"},
				Requirements: []spec.Requirement{reqT4018}, Status: outcome.Failed,
				Departure: outcome.Departf("401 Content-Type", "application/json", "text/plain; charset=utf-8", plain401),
				Steps:     steps(12, "passed", "passed", "failed"), Duration: 9 * time.Millisecond,
			},
			{
				ID: t401File + ": A credential issued by the peer answers 401", Feature: "Transport failure: 401 on /mcp", Pack: "source", FeatureFile: t401File,
				Scenario: "A credential issued by the peer answers 401", Line: 25, Tags: []string{"@T401-7", "@peer"},
				Requirements: []spec.Requirement{reqT4017}, Status: outcome.NotRun,
				Reason: "the profile names no peer (key peer.target)",
				Steps:  steps(25, "skipped", "skipped", "skipped"),
			},
			{
				ID: flowFile + ": A device code expires after five minutes", Feature: "Authorization-flow failures", Pack: "source", FeatureFile: flowFile,
				Scenario: "A device code expires after five minutes", Line: 40, Tags: []string{"@OAUTH-6", "@clock"},
				Requirements: []spec.Requirement{reqOAUTH6}, Status: outcome.Passed,
				Steps: steps(40, "passed", "passed", "passed"), Duration: 48 * time.Millisecond,
			},
			{
				ID: callFile + ": Writing where the provider cannot write", Feature: "In-call failures", Pack: "source", FeatureFile: callFile,
				Scenario: "Writing where the provider cannot write", Line: 15, Tags: []string{"@AFS-5"},
				Requirements: []spec.Requirement{reqAFS5}, Status: outcome.Failed, Expected: true,
				Departure: outcome.Departf("error text", "AFS_NOT_SUPPORTED: Not supported at /overlay/readonly/about.md", "AFS_FORBIDDEN: Access denied at /overlay/readonly/about.md"),
				Steps:     steps(15, "passed", "passed", "failed"), Duration: 7 * time.Millisecond,
			},
			{
				ID: callFile + ": A closed path is refused", Feature: "In-call failures", Pack: "source", FeatureFile: callFile,
				Scenario: "A closed path is refused", Line: 27, Tags: []string{"@AFS-1"},
				Requirements: []spec.Requirement{reqAFS1}, Status: outcome.Passed, Expected: true,
				Steps: steps(27, "passed", "passed", "passed"), Duration: 5 * time.Millisecond,
			},
		},
	}
}
