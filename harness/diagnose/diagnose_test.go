package diagnose_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/diagnose"
	"github.com/conform-mcp/conform/harness/fakeauthz"
)

// run diagnoses in against the fake host and renders the report.
func run(in diagnose.Input) (diagnose.Report, string) {
	GinkgoHelper()
	if in.HTTP == nil {
		in.HTTP = &http.Client{Timeout: 5 * time.Second}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rep, err := diagnose.Diagnose(ctx, in)
	Expect(err).NotTo(HaveOccurred())
	var b bytes.Buffer
	Expect(rep.Write(&b)).To(Succeed())
	return rep, b.String()
}

// steps returns the step of each observation.
func steps(rep diagnose.Report) []int {
	out := make([]int, 0, len(rep.Observations))
	for _, o := range rep.Observations {
		out = append(out, o.Step)
	}
	return out
}

var _ = Describe("Diagnose, walking source section 7.5", func() {
	Describe("step 1: anonymous tools/list does not answer 200", func() {
		It("names an unreachable host and checks /.well-known/mcp.json", func() {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			Expect(err).NotTo(HaveOccurred())
			base := "http://" + l.Addr().String()
			Expect(l.Close()).To(Succeed())

			rep, text := run(diagnose.Input{Target: base, Tool: "afs_read", Path: "/public/readme.md"})

			Expect(rep.Verdict.Step).To(Equal(1))
			Expect(rep.Verdict.Gate).To(Equal(diagnose.NoGate))
			Expect(rep.Verdict.Uncovered).To(BeFalse())
			Expect(rep.Verdict.Summary).To(ContainSubstring("unreachable or is not this kind of host"))
			Expect(rep.Verdict.Remedy).To(ContainSubstring(base + "/.well-known/mcp.json"))
			Expect(steps(rep)).To(Equal([]int{1, 1}))
			Expect(rep.Observations[0].What).To(HavePrefix("anonymous tools/list got no response"))
			Expect(rep.Observations[0].Exchange).NotTo(BeNil())
			Expect(rep.Observations[0].Exchange.TransportError).NotTo(BeEmpty())
			Expect(rep.Observations[1].What).To(HavePrefix("GET " + base + "/.well-known/mcp.json got no response"))
			Expect(text).To(ContainSubstring("Verdict: step 1, no gate"))
			Expect(text).To(ContainSubstring("Remedy: check the URL (the MCP endpoint is " + base + "/mcp)"))
		})

		It("names a host that answers tools/list with a 404 page, and reports mcp.json's status", func() {
			s := plainHost(map[string]plain{
				"POST /mcp":                 {http.StatusNotFound, "text/html", "<html><body>Not Found</body></html>"},
				"GET /.well-known/mcp.json": {http.StatusNotFound, "text/html", "<html>nope</html>"},
			})

			rep, text := run(diagnose.Input{Target: s.URL + "/", Tool: "afs_read", Path: "/public/readme.md"})

			Expect(rep.Verdict.Step).To(Equal(1))
			Expect(rep.Verdict.Gate).To(Equal(diagnose.NoGate))
			Expect(rep.Observations).To(HaveLen(2))
			Expect(rep.Observations[0].What).To(ContainSubstring("answered HTTP 404 with a text/html body"))
			Expect(rep.Observations[1].What).To(Equal("GET " + s.URL + "/.well-known/mcp.json answered HTTP 404 with a text/html body \"<html>nope</html>\""))
			Expect(rep.Observations[1].Exchange.Status).To(Equal(http.StatusNotFound))
			Expect(text).To(ContainSubstring("step 1  GET " + s.URL + "/.well-known/mcp.json answered HTTP 404"))
			Expect(text).To(ContainSubstring("not this kind of host"))
		})

		It("does not take a 200 without a tool list for this kind of host, nor name a gate", func() {
			s := plainHost(map[string]plain{
				"POST /mcp":                 {http.StatusOK, "application/json", `{"jsonrpc":"2.0","id":1,"result":{"hello":"world"}}`},
				"GET /.well-known/mcp.json": {http.StatusOK, "application/json", `{"name":"x"}`},
			})

			rep, text := run(diagnose.Input{Target: s.URL, Tool: "afs_read"})

			Expect(rep.Verdict.Step).To(Equal(1))
			Expect(rep.Verdict.Uncovered).To(BeTrue())
			Expect(rep.Verdict.Summary).To(ContainSubstring("without a list of tools"))
			Expect(rep.Observations[1].What).To(HaveSuffix("answered HTTP 200 with a JSON object"))
			Expect(text).To(ContainSubstring("without naming a gate (the source's failure shapes do not cover this)"))
		})
	})

	Describe("step 2: the tool is absent from tools/list", func() {
		It("says the host does not offer a tool it does not list", func() {
			h := newFakeHost()

			rep, text := run(diagnose.Input{Target: h.URL, Tool: "afs_teleport", Path: "/x"})

			Expect(rep.Verdict.Step).To(Equal(2))
			Expect(rep.Verdict.Gate).To(Equal(diagnose.NoGate))
			Expect(rep.Verdict.Summary).To(Equal("the host does not offer afs_teleport: it is not in tools/list"))
			Expect(rep.Verdict.Remedy).To(ContainSubstring("sign in with `conform login --target " + h.URL + "` and run `conform diagnose --target " +
				h.URL + " --tool afs_teleport --path /x` again"))
			Expect(h.toolCalls()).To(BeEmpty(), "the tool is never called once step 2 explains the failure")
			Expect(text).To(ContainSubstring("step 2  afs_teleport is not in tools/list, which names afs_list, afs_stat, afs_read, afs_write"))
			Expect(text).To(ContainSubstring("Verdict: step 2, no gate"))
		})

		It("says a missing content tool means the host declared no collections", func() {
			h := newFakeHost()

			rep, text := run(diagnose.Input{Target: h.URL, Tool: "search_content"})

			Expect(rep.Verdict.Step).To(Equal(2))
			Expect(rep.Verdict.Summary).To(ContainSubstring("the host declared no content collections"))
			Expect(text).To(ContainSubstring("search_content is a content tool"))
			Expect(text).To(ContainSubstring("Remedy: the host must declare content collections"))
		})

		It("asks with the credential too, since an authenticated list may show more", func() {
			h := newFakeHost()
			h.authTools = []string{"afs_exec"}

			rep, _ := run(diagnose.Input{Target: h.URL, Tool: "afs_exec", Path: "/bin/x", Credential: credential})

			Expect(rep.Verdict.Step).To(Equal(0))
			Expect(rep.Observations[1].What).To(Equal("tools/list with the credential answered HTTP 200 with 5 tools"))
			Expect(rep.Observations[2].What).To(Equal("afs_exec is in tools/list"))
		})
	})

	Describe("step 3: the call answers 401", func() {
		It("names a listed tool that answers 401 to an anonymous caller a privileged tool, and shows the challenge", func() {
			h := newFakeHost()
			h.onCall = hasPrivileged(h.URL, "afs_write")
			meta := h.URL + "/.well-known/oauth-protected-resource"

			rep, text := run(diagnose.Input{Target: h.URL, Tool: "afs_write", Path: "/overlay/scratch.txt", Arguments: map[string]any{"content": "it's x"}})

			Expect(rep.Verdict.Step).To(Equal(3))
			Expect(rep.Verdict.Gate).To(Equal(diagnose.GateOneOrTwo))
			Expect(rep.Verdict.Uncovered).To(BeFalse())
			Expect(rep.Verdict.Summary).To(ContainSubstring("so it is a privileged tool"))
			Expect(rep.Verdict.Remedy).To(ContainSubstring("`conform login --target " + h.URL + "`"))
			// The command to diagnose again works as printed: the write's
			// content included, quoted for the shell (issue 16 item 10).
			Expect(rep.Verdict.Remedy).To(ContainSubstring("`conform diagnose --target " + h.URL +
				" --tool afs_write --path /overlay/scratch.txt --arg 'content=it'\\''s x'` diagnoses the call with it"))
			Expect(rep.Verdict.Remedy).To(ContainSubstring(meta))
			Expect(steps(rep)).To(Equal([]int{1, 2, 3, 3}))
			Expect(rep.Observations[3].What).To(Equal("GET " + meta + " answered HTTP 200 with a JSON object"))
			Expect(h.toolCalls()).To(HaveLen(1))
			Expect(h.toolCalls()[0].args).To(Equal(map[string]any{"path": "/overlay/scratch.txt", "content": "it's x"}))
			Expect(text).To(ContainSubstring("answered HTTP 401 with a Bearer challenge whose resource_metadata is " + meta))
			Expect(text).To(ContainSubstring("Verdict: step 3, gate 1 or 2"))
			Expect(text).To(ContainSubstring("follow the WWW-Authenticate challenge"))
		})

		It("says a credential answered with 401 was rejected, and never prints it", func() {
			h := newFakeHost()
			h.accept = func(string) bool { return false }
			h.onCall = func(c call) answer {
				// The host echoes the token it refused: the report must still mask it.
				a := unauthorized(h.URL)
				a.raw = `{"error":"Unauthorized","token":"` + credential + `"}`
				return a
			}

			rep, text := run(diagnose.Input{Target: h.URL, Tool: "afs_exec", Path: "/bin/x", Credential: credential})

			Expect(rep.Verdict.Step).To(Equal(3))
			Expect(rep.Verdict.Gate).To(Equal(diagnose.GateOneOrTwo))
			Expect(rep.Verdict.Summary).To(ContainSubstring("the host rejected the credential (malformed, unknown, or issued by a different host instance"))
			Expect(rep.Verdict.Remedy).To(ContainSubstring("obtain a credential from this host with `conform login --target " + h.URL + "`"))
			Expect(rep.Observations[1].What).To(Equal("tools/list with the credential answered HTTP 401: the host refuses the credential itself"))
			Expect(text).To(ContainSubstring("step 2  afs_exec is not in the anonymous tools/list and the authenticated one could not be had, so the call decides"))
			Expect(text).NotTo(ContainSubstring(credential))
			all, err := json.Marshal(rep)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(all)).NotTo(ContainSubstring(credential))
			Expect(string(all)).To(ContainSubstring("Bearer ****"))
		})

		It("says so when the 401 carries no challenge", func() {
			h := newFakeHost()
			h.onCall = fixed(answer{status: http.StatusUnauthorized, raw: `{"error":"Unauthorized"}`, rawType: "application/json"})

			rep, _ := run(diagnose.Input{Target: h.URL, Tool: "afs_write", Path: "/p"})

			Expect(rep.Verdict.Gate).To(Equal(diagnose.GateOneOrTwo))
			Expect(rep.Observations[2].What).To(ContainSubstring("no Bearer challenge naming resource_metadata"))
			Expect(rep.Verdict.Remedy).NotTo(ContainSubstring("resource metadata is at"))
		})
	})

	Describe("step 4: AFS_FORBIDDEN", func() {
		forbidden := "AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot read base paths; declare a networkRead rule or use an overlay"

		DescribeTable("names gate 3 and the host's declaration as the remedy",
			func(sse bool, cred string) {
				h := newFakeHost()
				h.sse = sse
				h.onCall = byTool(map[string]func(call) answer{"afs_read": fixed(toolText(true, forbidden))})

				rep, text := run(diagnose.Input{Target: h.URL, Tool: "afs_read", Path: "/base/notes.txt", Credential: cred})

				Expect(rep.Verdict.Step).To(Equal(4))
				Expect(rep.Verdict.Gate).To(Equal(diagnose.GatePathPolicy))
				Expect(rep.Verdict.Result).To(Equal(forbidden))
				Expect(rep.Verdict.Summary).To(HaveSuffix("and /base/notes.txt is closed to network clients"))
				Expect(rep.Verdict.Remedy).To(ContainSubstring("declaring a networkRead rule or a resolver overlay"))
				Expect(rep.Verdict.Remedy).To(ContainSubstring("a credential or the owner role will not help (source 5.7)"))
				Expect(text).To(ContainSubstring("Verdict: step 4, gate 3"))
				Expect(text).To(ContainSubstring("step 4  the error is AFS_FORBIDDEN"))
				Expect(text).To(ContainSubstring("Result:\n  " + forbidden))
				if cred != "" {
					Expect(rep.Verdict.Summary).To(HavePrefix("gate 3 (path policy) refused the call: the credential is fine"))
				}
			},
			Entry("anonymous, JSON replies", false, ""),
			Entry("with a credential, JSON replies", false, credential),
			Entry("anonymous, SSE replies", true, ""),
		)
	})

	Describe("step 5: an in-call error that is not AFS_FORBIDDEN", func() {
		unsupported := "AFS_NOT_SUPPORTED: Not supported at /overlay/readonly/about.md: the provider does not implement write"

		DescribeTable("names gate 4 when afs_stat's capabilities lack the operation",
			func(sse bool, stat answer) {
				h := newFakeHost()
				h.sse = sse
				h.onCall = byTool(map[string]func(call) answer{
					"afs_write": fixed(toolText(true, unsupported)),
					"afs_stat":  fixed(stat),
				})

				rep, text := run(diagnose.Input{Target: h.URL, Tool: "afs_write", Path: "/overlay/readonly/about.md", Credential: credential, Arguments: map[string]any{"content": "x"}})

				Expect(rep.Verdict.Step).To(Equal(5))
				Expect(rep.Verdict.Gate).To(Equal(diagnose.GateProvider))
				Expect(rep.Verdict.Summary).To(Equal("gate 4 (provider) refused the call: afs_stat does not list write in the capabilities of /overlay/readonly/about.md, so the provider does not implement it"))
				Expect(rep.Verdict.Result).To(Equal(unsupported))
				Expect(names(h.toolCalls())).To(Equal([]string{"afs_write /overlay/readonly/about.md", "afs_stat /overlay/readonly/about.md"}))
				Expect(h.toolCalls()[1].auth).To(Equal("Bearer " + credential))
				Expect(text).To(ContainSubstring("step 5  afs_stat on /overlay/readonly/about.md lists the capabilities [list, read, stat]"))
				Expect(text).To(ContainSubstring("Verdict: step 5, gate 4"))
			},
			Entry("capabilities in structured content", false, answer{result: map[string]any{
				"content":           []map[string]any{{"type": "text", "text": "about.md"}},
				"structuredContent": map[string]any{"entry": map[string]any{"capabilities": []string{"list", "read", "stat"}}},
			}}),
			Entry("capabilities in the text as JSON, over SSE", true, toolText(false, `{"path":"/overlay/readonly/about.md","meta":{"capabilities":["list","read","stat"]}}`)),
		)

		It("says when the operation is a guess from the tool name", func() {
			h := newFakeHost()
			h.tools = append(h.tools, "write_file")
			h.onCall = byTool(map[string]func(call) answer{
				"write_file": fixed(toolText(true, "AFS_NOT_SUPPORTED: Not supported at /r: no")),
				"afs_stat":   fixed(toolText(false, `{"capabilities":["read"]}`)),
			})

			rep, _ := run(diagnose.Input{Target: h.URL, Tool: "write_file", Path: "/r"})

			Expect(rep.Verdict.Gate).To(Equal(diagnose.GateProvider))
			Expect(rep.Verdict.Summary).To(HaveSuffix("(taking write as the operation of write_file, a guess from its name)"))
		})

		It("lists the parent of a path not found, and finds the name absent from it", func() {
			h := newFakeHost()
			h.onCall = byTool(map[string]func(call) answer{
				"afs_read": fixed(toolText(true, "AFS_NOT_FOUND: Path not found: /public/no-such-file")),
				"afs_stat": fixed(toolText(true, "AFS_NOT_FOUND: Path not found: /public/no-such-file")),
				"afs_list": fixed(toolText(false, `{"entries":[{"path":"/public/readme.md"},{"path":"/public/docs/"}]}`)),
			})

			rep, text := run(diagnose.Input{Target: h.URL, Tool: "afs_read", Path: "/public/no-such-file"})

			Expect(rep.Verdict.Step).To(Equal(5))
			Expect(rep.Verdict.Gate).To(Equal(diagnose.NoGate))
			Expect(rep.Verdict.Uncovered).To(BeFalse())
			Expect(rep.Verdict.Summary).To(Equal("/public/no-such-file does not exist on this host: its parent /public lists, so a provider is there, but no-such-file is not in it"))
			Expect(names(h.toolCalls())).To(Equal([]string{"afs_read /public/no-such-file", "afs_stat /public/no-such-file", "afs_list /public"}))
			Expect(text).To(ContainSubstring("step 5  afs_list on the parent /public lists, and does not name no-such-file"))
			Expect(text).To(ContainSubstring("paths are scoped to the host"))
			Expect(text).To(ContainSubstring("Verdict: step 5, no gate"))
		})

		It("says when the parent is missing too, so no provider may be mounted there", func() {
			h := newFakeHost()
			h.onCall = byTool(map[string]func(call) answer{
				"afs_read": fixed(toolText(true, "AFS_NOT_FOUND: Path not found: /nowhere/x")),
				"afs_stat": fixed(toolText(true, "AFS_NOT_FOUND: Path not found: /nowhere/x")),
				"afs_list": fixed(toolText(true, "AFS_NOT_FOUND: Path not found: /nowhere")),
			})

			rep, _ := run(diagnose.Input{Target: h.URL, Tool: "afs_read", Path: "/nowhere/x"})

			Expect(rep.Verdict.Step).To(Equal(5))
			Expect(rep.Verdict.Summary).To(Equal("/nowhere/x does not exist on this host, and neither does its parent /nowhere: no provider may be mounted there"))
		})

		It("asks for a credential when the host lets only signed-in callers list the parent", func() {
			h := newFakeHost()
			h.onCall = byTool(map[string]func(call) answer{
				"afs_read": fixed(toolText(true, "AFS_NOT_FOUND: Path not found: /public/no-such-file")),
				"afs_stat": fixed(answer{status: http.StatusUnauthorized, raw: `{"error":"Unauthorized"}`, rawType: "application/json"}),
				"afs_list": fixed(answer{status: http.StatusUnauthorized, raw: `{"error":"Unauthorized"}`, rawType: "application/json"}),
			})

			rep, _ := run(diagnose.Input{Target: h.URL, Tool: "afs_read", Path: "/public/no-such-file"})

			Expect(rep.Verdict.Step).To(Equal(5))
			Expect(rep.Verdict.Gate).To(Equal(diagnose.NoGate))
			Expect(rep.Verdict.Summary).To(ContainSubstring("its parent /public could not be listed"))
			Expect(rep.Verdict.Remedy).To(Equal("afs_list answers 401 to an anonymous caller on this host: sign in with `conform login --target " + h.URL +
				"` and run `conform diagnose --target " + h.URL + " --tool afs_read --path /public/no-such-file` again, so that the parent can be listed"))
		})

		It("does not explain a not-found path whose parent lists it", func() {
			h := newFakeHost()
			h.onCall = byTool(map[string]func(call) answer{
				"afs_read": fixed(toolText(true, "AFS_NOT_FOUND: Path not found: /public/a.md")),
				"afs_stat": fixed(toolText(true, "AFS_NOT_FOUND: Path not found: /public/a.md")),
				"afs_list": fixed(toolText(false, "a.md\nb.md")),
			})

			rep, _ := run(diagnose.Input{Target: h.URL, Tool: "afs_read", Path: "/public/a.md"})

			Expect(rep.Verdict.Uncovered).To(BeTrue())
			Expect(rep.Verdict.Gate).To(Equal(diagnose.NoGate))
			Expect(rep.Verdict.Summary).To(ContainSubstring("yet the listing of /public names a.md"))
		})

		It("names no gate for an error that neither gate 3 nor gate 4 explains", func() {
			h := newFakeHost()
			h.onCall = byTool(map[string]func(call) answer{
				"afs_read": fixed(toolText(true, "AFS_BUSY: Busy at /public/readme.md: try later")),
				"afs_stat": fixed(toolText(false, `{"capabilities":["read","stat"]}`)),
			})

			rep, text := run(diagnose.Input{Target: h.URL, Tool: "afs_read", Path: "/public/readme.md"})

			Expect(rep.Verdict.Step).To(Equal(5))
			Expect(rep.Verdict.Gate).To(Equal(diagnose.NoGate))
			Expect(rep.Verdict.Uncovered).To(BeTrue())
			Expect(rep.Verdict.Summary).To(ContainSubstring("failed with AFS_BUSY, which no step of the diagnosis order explains"))
			Expect(text).To(ContainSubstring("step 5  read is among the capabilities, so gate 4 does not refuse it"))
		})
	})

	Describe("success", func() {
		DescribeTable("prints the result, abbreviated",
			func(sse bool) {
				h := newFakeHost()
				h.sse = sse
				long := "# Readme\n" + strings.Repeat("x", 1000)
				h.onCall = byTool(map[string]func(call) answer{"afs_read": fixed(toolText(false, long))})

				rep, text := run(diagnose.Input{Target: h.URL, Tool: "afs_read", Path: "/public/readme.md"})

				Expect(rep.Verdict.Step).To(Equal(0))
				Expect(rep.Verdict.Gate).To(Equal(diagnose.NoGate))
				Expect(rep.Verdict.Result).To(Equal(long))
				Expect(steps(rep)).To(Equal([]int{1, 2, 3}))
				Expect(text).To(ContainSubstring("Verdict: the call succeeds\n  the call succeeds: it passed all four gates (HTTP 200, isError false)"))
				Expect(text).To(ContainSubstring("Result:\n  # Readme\n  xxx"))
				Expect(text).To(ContainSubstring("… (409 more bytes)"))
			},
			Entry("JSON replies", false),
			Entry("SSE replies", true),
		)
	})

	Describe("replies the source's failure shapes do not cover", func() {
		DescribeTable("are reported as they are, naming no gate",
			func(a answer, says string) {
				h := newFakeHost()
				h.onCall = fixed(a)

				rep, text := run(diagnose.Input{Target: h.URL, Tool: "afs_read", Path: "/public/readme.md"})

				Expect(rep.Verdict.Step).To(Equal(3))
				Expect(rep.Verdict.Gate).To(Equal(diagnose.NoGate))
				Expect(rep.Verdict.Uncovered).To(BeTrue())
				Expect(rep.Verdict.Summary).To(ContainSubstring(says + ", which the source's failure shapes do not cover"))
				Expect(text).To(ContainSubstring("without naming a gate"))
			},
			Entry("a 500", answer{status: http.StatusInternalServerError, raw: "boom", rawType: "text/plain"}, `the call answered HTTP 500 with a text/plain body "boom"`),
			Entry("a 403", answer{status: http.StatusForbidden, raw: `{"error":"forbidden"}`, rawType: "application/json"}, `the call answered HTTP 403 with an application/json body "{\"error\":\"forbidden\"}"`),
			Entry("a JSON-RPC error", answer{rpcError: map[string]any{"code": -32602, "message": "Unknown tool"}}, `the call answered HTTP 200 with JSON-RPC error -32602 "Unknown tool"`),
		)
	})

	Describe("bad input", func() {
		DescribeTable("is an error, with no request sent",
			func(in diagnose.Input, says string) {
				_, err := diagnose.Diagnose(context.Background(), in)
				Expect(err).To(MatchError(ContainSubstring(says)))
			},
			Entry("no tool", diagnose.Input{Target: "http://127.0.0.1:1"}, "a tool name is required"),
			Entry("not a URL", diagnose.Input{Target: "127.0.0.1:1", Tool: "afs_read"}, "must be an http or https URL"),
			Entry("a URL with credentials", diagnose.Input{Target: "http://u:p@127.0.0.1:1", Tool: "afs_read"}, "must not carry credentials"),
			Entry("arguments that are not JSON", diagnose.Input{Target: "http://127.0.0.1:1", Tool: "afs_read", Arguments: map[string]any{"c": make(chan int)}}, "cannot be sent as JSON"),
		)

		It("returns an error when the context ends, rather than blaming the host", func() {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := diagnose.Diagnose(ctx, diagnose.Input{Target: "http://127.0.0.1:1", Tool: "afs_read"})
			Expect(err).To(MatchError(context.Canceled))
		})
	})
})

var _ = Describe("Diagnose, on a server whose tools/list needs a token", func() {
	It("says the server needs authorization and how to give conform a credential", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		rep, text := run(diagnose.Input{Target: h.RS.URL, Tool: "echo"})
		Expect(rep.Verdict.Step).To(Equal(1))
		Expect(rep.Verdict.Summary).To(ContainSubstring("needs authorization even to list tools"))
		Expect(rep.Verdict.Summary).NotTo(ContainSubstring("unreachable"))
		Expect(rep.Verdict.Remedy).To(ContainSubstring("--credential-env VAR"))
		Expect(rep.Verdict.Remedy).To(ContainSubstring("conform login --target " + h.RS.URL))
		Expect(rep.Verdict.Remedy).To(ContainSubstring("--spec mcp-authorization"))
		Expect(text).To(ContainSubstring("needs authorization"))
	})

	It("goes on past step 1 with a credential the server serves, to the call itself", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		token := h.Mint(h.Endpoint(), fakeauthz.ScopeTools+" "+fakeauthz.ScopeWrite, false)
		rep, _ := run(diagnose.Input{Target: h.RS.URL, Tool: "echo", Credential: token})
		Expect(rep.Verdict.Summary).To(ContainSubstring("the call succeeds"), "%+v", rep.Verdict)
		Expect(rep.Observations[1].What).To(ContainSubstring("tools/list with the credential answered HTTP 200"))
	})
})
