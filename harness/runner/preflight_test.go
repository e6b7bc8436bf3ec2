package runner_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/conform-mcp/conform/harness/fakehost"
	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/spec"
)

// preflightSetup is a fake target and its peer, with the credentials each
// issued, supplied as a user would supply them.
type preflightSetup struct {
	host, peer *fakehost.Host
	target     *target.Target
	targetLog  *requestLog
}

// newPreflightSetup serves a fake target and a fake peer instance that
// accepts the peer credential the target must refuse (as in
// runOAuthFakeWith), and builds the target with both credentials supplied
// through the profile's environment variables.
func newPreflightSetup(opts fakehost.MCPOptions) preflightSetup {
	host := fakehost.New(opts)
	log := &requestLog{}
	srv := httptest.NewServer(log.wrap(host.Handler()))
	DeferCleanup(srv.Close)
	peer := fakehost.New(fakehost.MCPOptions{Mode: opts.Mode})
	peerSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+host.PeerCredential() {
			r.Header.Set("Authorization", "Bearer "+peer.Credential())
		}
		peer.Handler().ServeHTTP(w, r)
	}))
	DeferCleanup(peerSrv.Close)

	p := profile.Default(srv.URL)
	p.CredentialEnv = "HOST_TOKEN"
	p.Peer = &profile.Peer{Target: peerSrv.URL, CredentialEnv: "PEER_TOKEN"}
	return preflightSetup{host: host, peer: peer, targetLog: log, target: &target.Target{
		Profile:              p,
		Credential:           host.Credential(),
		CredentialSource:     "the credential in HOST_TOKEN",
		PeerCredential:       host.PeerCredential(),
		PeerCredentialSource: "the credential in PEER_TOKEN",
		HTTP:                 &http.Client{Timeout: 10 * time.Second},
	}}
}

// targetOn builds a target with no credentials for a server that is not a
// fake tool host.
func targetOn(h http.Handler) *target.Target {
	srv := httptest.NewServer(h)
	DeferCleanup(srv.Close)
	return &target.Target{Profile: profile.Default(srv.URL), HTTP: &http.Client{Timeout: 10 * time.Second}}
}

// expectNotToolHost checks that the error names the target, the request, the
// answer and the advice of source 7.5 step 1, in a few lines.
func expectNotToolHost(err error, base string, received ...string) {
	GinkgoHelper()
	var e *runner.NotToolHostError
	Expect(errors.As(err, &e)).To(BeTrue(), "%v", err)
	msg := err.Error()
	Expect(msg).To(HavePrefix(base + " does not answer as an agent-facing tool host"))
	Expect(msg).To(ContainSubstring("source 7.5, step 1"))
	Expect(msg).To(ContainSubstring(`sent:      POST ` + base + `/mcp {"jsonrpc":"2.0",`))
	Expect(msg).To(ContainSubstring(`"method":"tools/list"`))
	for _, r := range received {
		Expect(e.Received).To(ContainSubstring(r))
	}
	Expect(msg).To(ContainSubstring("check the URL"))
	Expect(msg).To(ContainSubstring(base + "/.well-known/mcp.json"))
	Expect(msg).To(ContainSubstring("No scenario was run"))
	Expect(strings.Count(msg, "\n")).To(BeNumerically("<=", 6), "a few lines, not a page:\n%s", msg)
	for _, line := range strings.Split(msg, "\n") {
		Expect(len(line)).To(BeNumerically("<", 400), "a line of reasonable length: %s", line)
	}
}

// preflight is the whole pre-flight, as conform run makes it.
func preflight(ctx context.Context, t *target.Target) error {
	if err := runner.CheckHost(ctx, t); err != nil {
		return err
	}
	return runner.CheckCredentials(ctx, t, profile.Request{Method: "tools/list"})
}

var _ = Describe("the pre-flight before the scenarios", func() {
	DescribeTable("lets a compliant host through, whatever its transport, with both credentials checked",
		func(ctx context.Context, mode fakehost.Mode, each []string) {
			s := newPreflightSetup(fakehost.MCPOptions{Mode: mode})
			Expect(preflight(ctx, s.target)).To(Succeed())
			// Anonymous, then authenticated, each as the host's revision
			// asks: a stateless host serves the 2026-07-28 request; a host
			// that keeps sessions refuses it and gets the handshake.
			sent := s.targetLog.all()
			Expect(sent).To(HaveLen(2 * len(each)))
			for i, method := range each {
				Expect(sent[i]).To(ContainSubstring(`"method":"` + method + `"`))
				Expect(sent[i+len(each)]).To(ContainSubstring(`"method":"` + method + `"`))
			}
		},
		Entry("JSON", fakehost.JSON, []string{"tools/list"}),
		Entry("an event stream", fakehost.SSE, []string{"tools/list"}),
		Entry("sessions: initialize first, Mcp-Session-Id after", fakehost.Sessions,
			[]string{"tools/list", "initialize", "notifications/initialized", "tools/list"}),
	)

	It("lets a stock MCP server through that keeps sessions and answers with event streams", func(ctx context.Context) {
		server := mcp.NewServer(&mcp.Implementation{Name: "stock", Version: "1"}, nil)
		server.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, nil
			})
		mux := http.NewServeMux()
		// The SDK's defaults: a session per initialize, replies as event streams.
		mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
		var mu sync.Mutex
		var sessions, streams []string
		t := targetOn(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// Noted before the answer, so every request is noted by the
			// time the client has its reply.
			mu.Lock()
			sessions = append(sessions, r.Header.Get("Mcp-Session-Id"))
			mu.Unlock()
			mux.ServeHTTP(w, r)
			mu.Lock()
			streams = append(streams, w.Header().Get("Content-Type"))
			mu.Unlock()
		}))
		noted := func(list *[]string) func() []string {
			return func() []string {
				mu.Lock()
				defer mu.Unlock()
				return slices.Clone(*list)
			}
		}

		Expect(preflight(ctx, t)).To(Succeed())
		// The SDK's stateful handler refused the 2026-07-28 request; then
		// initialize opened a session that the calls after it carried, and
		// the answers came as event streams.
		got := noted(&sessions)()
		Expect(got).To(HaveLen(4))
		Expect(got[:2]).To(HaveEach(BeEmpty()))
		Expect(got[2:]).To(HaveEach(Not(BeEmpty())))
		// A handler may still be closing its stream when the client is done.
		Eventually(noted(&streams)).Should(ContainElement(HavePrefix("text/event-stream")))
	})

	It("never sends ping, which anonymous callers may not use (source 5.3)", func(ctx context.Context) {
		log := &requestLog{}
		t := targetOn(log.wrap(fakehost.New(fakehost.MCPOptions{}).Handler()))
		Expect(preflight(ctx, t)).To(Succeed())
		Expect(log.all()).To(ContainElement(ContainSubstring(`"method":"tools/list"`)))
		Expect(log.all()).NotTo(ContainElement(ContainSubstring(`"ping"`)))
	})

	DescribeTable("says once that a target which is not a tool host is not one, and why",
		func(ctx context.Context, h http.Handler, received ...string) {
			t := targetOn(h)
			expectNotToolHost(preflight(ctx, t), t.Profile.Target, received...)
		},
		Entry("a plain web server", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><body>" + strings.Repeat("Welcome! ", 200) + "</body></html>"))
		}), `HTTP 200 with a text/html body "<html><body>Welcome!`),
		Entry("a server with nothing at /mcp", http.NotFoundHandler(), `HTTP 404 with a text/plain body "404 page not found"`),
		Entry("a host whose tools/list fails", fakehost.New(fakehost.MCPOptions{Breaks: []fakehost.Break{fakehost.ToolsListFails}}).Handler(),
			"HTTP 500", `JSON-RPC error -32603 "internal error"`),
		Entry("a JSON-RPC server that does not know tools/list", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found"}}`))
		}), `HTTP 200 with JSON-RPC error -32601 "Method not found"`),
		Entry("a host that wants a credential for tools/list", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", "Bearer")
			w.WriteHeader(http.StatusUnauthorized)
		}), "HTTP 401"),
	)

	It("names what the discovery document answered, and what answered before the call", func(ctx context.Context) {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /.well-known/mcp.json", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"name":"somewhere else"}`))
		})
		mux.HandleFunc("POST /mcp", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no", http.StatusBadRequest)
		})
		t := targetOn(mux)
		err := preflight(ctx, t)
		expectNotToolHost(err, t.Profile.Target, `HTTP 400 with a text/plain body "no"`)
		Expect(err.Error()).To(ContainSubstring("before it: tools/list (MCP 2026-07-28) answered the same; initialize answered the same"))
		Expect(err.Error()).To(ContainSubstring(`discovery: GET ` + t.Profile.Target + `/.well-known/mcp.json answered HTTP 200 with an application/json body "{\"name\":\"somewhere else\"}"`))
	})

	It("says within seconds that a target on a closed port is unreachable", func(ctx context.Context) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		addr := ln.Addr().String()
		Expect(ln.Close()).To(Succeed())
		t := &target.Target{Profile: profile.Default("http://" + addr), HTTP: &http.Client{Timeout: 10 * time.Second}}
		err = preflight(ctx, t)
		Expect(err).To(MatchError(ContainSubstring("target http://" + addr + " is unreachable")))
		var usage *runner.UsageError
		Expect(errors.As(err, &usage)).To(BeFalse(), "the target's own failure is not a usage error")
	})

	Context("with a credential the user supplied", func() {
		It("is a usage error, naming where the credential came from, when the target refuses it", func(ctx context.Context) {
			s := newPreflightSetup(fakehost.MCPOptions{Mode: fakehost.Sessions})
			s.target.Credential = "issued-by-someone-else-entirely"
			err := preflight(ctx, s.target)
			var usage *runner.UsageError
			Expect(errors.As(err, &usage)).To(BeTrue(), "%v", err)
			Expect(err.Error()).To(HavePrefix("the credential in HOST_TOKEN is refused by the target " + s.target.Endpoint() + " (HTTP 401"))
			Expect(err.Error()).To(ContainSubstring("sign in again with `conform login --target " + s.target.Profile.Target + "`"))
			Expect(err.Error()).NotTo(ContainSubstring("issued-by-someone-else-entirely"))
		})

		It("names the credential conform login stored when that is the one refused", func(ctx context.Context) {
			s := newPreflightSetup(fakehost.MCPOptions{})
			s.target.Credential = "stale-stored-credential"
			s.target.CredentialSource = "the credential conform login stored for " + s.target.Profile.Target
			err := preflight(ctx, s.target)
			Expect(err).To(MatchError(HavePrefix("the credential conform login stored for " + s.target.Profile.Target + " is refused by the target")))
		})

		It("is a usage error, quoting the answer, when the target answers it with anything but a 2xx", func(ctx context.Context) {
			t := targetOn(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "" {
					http.Error(w, "upstream failed", http.StatusInternalServerError)
					return
				}
				fakehost.New(fakehost.MCPOptions{}).Handler().ServeHTTP(w, r)
			}))
			t.Credential, t.CredentialSource = "a-credential", "the credential in HOST_TOKEN"
			err := runner.CheckCredentials(ctx, t, profile.Request{Method: "tools/list"})
			var usage *runner.UsageError
			Expect(errors.As(err, &usage)).To(BeTrue(), "%v", err)
			Expect(err.Error()).To(ContainSubstring(`is not served by the target ` + t.Endpoint() + ` (HTTP 500 with a text/plain body "upstream failed" to an authenticated tools/list)`))
		})

		It("leaves a credential the harness obtained itself to the scenarios", func(ctx context.Context) {
			s := newPreflightSetup(fakehost.MCPOptions{})
			s.target.Credential, s.target.CredentialSource = "from-a-sign-in-during-the-run", ""
			Expect(preflight(ctx, s.target)).To(Succeed())
		})

		It("is a usage error when the peer refuses the peer's credential", func(ctx context.Context) {
			s := newPreflightSetup(fakehost.MCPOptions{Mode: fakehost.SSE})
			s.target.PeerCredential = s.host.Credential()
			err := preflight(ctx, s.target)
			var usage *runner.UsageError
			Expect(errors.As(err, &usage)).To(BeTrue(), "%v", err)
			Expect(err.Error()).To(HavePrefix("the credential in PEER_TOKEN is refused by the peer " + s.target.Profile.Peer.Target + " (HTTP 401"))
			Expect(err.Error()).To(ContainSubstring("peer.credential_env"))
			Expect(err.Error()).NotTo(ContainSubstring(s.host.Credential()))
		})

		It("does not ask the target to take the peer's credential: refusing it is what a scenario checks", func(ctx context.Context) {
			s := newPreflightSetup(fakehost.MCPOptions{Breaks: []fakehost.Break{fakehost.PeerCredentialAccepted}})
			Expect(preflight(ctx, s.target)).To(Succeed())
			s = newPreflightSetup(fakehost.MCPOptions{})
			Expect(preflight(ctx, s.target)).To(Succeed())
		})

		It("is a usage error naming peer.target when the peer does not answer", func(ctx context.Context) {
			s := newPreflightSetup(fakehost.MCPOptions{})
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			Expect(err).NotTo(HaveOccurred())
			s.target.Profile.Peer.Target = "http://" + ln.Addr().String()
			Expect(ln.Close()).To(Succeed())
			err = preflight(ctx, s.target)
			var usage *runner.UsageError
			Expect(errors.As(err, &usage)).To(BeTrue(), "%v", err)
			Expect(err.Error()).To(ContainSubstring("check peer.target"))
		})

		It("checks no credential before knowing the target is a tool host", func(ctx context.Context) {
			s := newPreflightSetup(fakehost.MCPOptions{Breaks: []fakehost.Break{fakehost.ToolsListFails}})
			s.target.Credential = "wrong"
			expectNotToolHost(preflight(ctx, s.target), s.target.Profile.Target, "HTTP 500")
		})
	})
})

var _ = Describe("the mcp-authorization pack's pre-flight", func() {
	It("lets an MCP server through whether it serves anonymous callers or challenges them", func(ctx context.Context) {
		open := targetOn(fakehost.New(fakehost.MCPOptions{Mode: fakehost.Sessions}).Handler())
		open.Profile.MCPAuthorization.ProtectedRequest = profile.Request{Method: "tools/call", Params: map[string]any{"name": "afs_write"}}
		Expect(authorizationPreflight(ctx, open)).To(Succeed())
		protected := targetOn(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="https://h/.well-known/oauth-protected-resource"`)
			w.WriteHeader(http.StatusUnauthorized)
		}))
		Expect(authorizationPreflight(ctx, protected)).To(Succeed())
		Expect(protected.Profile.MCPAuthorization.ProtectedRequest).To(Equal(profile.Request{Method: "tools/list"}),
			"with none named, the tools/list the server refused anonymously")
	})

	It("stops with a usage error naming the key when none is named and the server serves anonymous tools/list and protected resource metadata", func(ctx context.Context) {
		mcp := fakehost.New(fakehost.MCPOptions{}).Handler()
		open := targetOn(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"resource":"http://h/mcp","authorization_servers":["https://as.example"]}`))
				return
			}
			mcp.ServeHTTP(w, r)
		}))
		err := authorizationPreflight(ctx, open)
		var ue *runner.UsageError
		Expect(errors.As(err, &ue)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("mcp_authorization.protected_request"))
	})

	It("says once that a web page is no MCP server, and runs nothing against it", func(ctx context.Context) {
		page := targetOn(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotImplemented)
			_, _ = w.Write([]byte("<html><body>Unsupported method</body></html>"))
		}))
		err := authorizationPreflight(ctx, page)
		Expect(err).To(MatchError(ContainSubstring("does not answer as an MCP server")))
		Expect(err.Error()).To(ContainSubstring(`HTTP 501 with a text/html body "<html><body>Unsupported method</body></html>"`))
		Expect(err.Error()).To(ContainSubstring("No scenario was run"))
	})
})

// authorizationPreflight is the mcp-authorization pack's pre-flight.
func authorizationPreflight(ctx context.Context, t *target.Target) error {
	pack, err := runner.LookupPack(spec.Authorization)
	Expect(err).NotTo(HaveOccurred())
	return pack.Preflight.Check(ctx, t)
}
