package runner_test

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing/fstest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/features"
	"github.com/conform-mcp/conform/harness/fakehost"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/harness/target"
)

// mcpFeatureFiles are the features of the MCP side. The fake host serves no
// OAuth endpoints, so the runs here select these files rather than tags,
// which OAuth-side scenarios may share.
var mcpFeatureFiles = []string{
	"1_service.feature",
	"4_endpoints_mcp.feature",
	"5_authentication.feature",
	"7_1_failure_shapes.feature",
	"7_2_transport_401.feature",
	"7_4_in_call_failures.feature",
	"7_5_diagnosis.feature",
}

// mcpFeatures copies the MCP-side features out of the embedded set.
func mcpFeatures() fs.FS { return featureFiles(mcpFeatureFiles) }

// featureFiles copies the named features out of the embedded set.
func featureFiles(names []string) fs.FS {
	m := fstest.MapFS{}
	for _, name := range names {
		data, err := fs.ReadFile(features.FS, name)
		Expect(err).NotTo(HaveOccurred())
		m[name] = &fstest.MapFile{Data: data}
	}
	return m
}

// fakeRun is one run against a fake host.
type fakeRun struct {
	host   *fakehost.Host
	target *target.Target
	run    outcome.Run
	// bodies are the request bodies the host received, in order.
	bodies *requestLog
}

// requestLog records request bodies, for checking what the harness sent.
type requestLog struct {
	mu     sync.Mutex
	bodies []string
}

func (l *requestLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		Expect(err).NotTo(HaveOccurred())
		l.mu.Lock()
		l.bodies = append(l.bodies, string(body))
		l.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

func (l *requestLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.bodies)
}

// runFake serves a fake host with httptest and runs the MCP-side features
// against it; tune may change the target and the options before the run
// (drop a credential, set Tags or Strict).
func runFake(opts fakehost.MCPOptions, tune ...func(*target.Target, *runner.Options)) fakeRun {
	return runFakeOn(mcpFeatures(), opts, tune...)
}

// runFakeOn is runFake over the features in fsys.
func runFakeOn(fsys fs.FS, opts fakehost.MCPOptions, tune ...func(*target.Target, *runner.Options)) fakeRun {
	host := fakehost.New(opts)
	log := &requestLog{}
	srv := httptest.NewServer(log.wrap(host.Handler()))
	DeferCleanup(srv.Close)
	p := profile.Default(srv.URL)
	p.ContentCollections = opts.Collections
	t := &target.Target{
		Profile:        p,
		Credential:     host.Credential(),
		PeerCredential: host.PeerCredential(),
		HTTP:           &http.Client{Timeout: 10 * time.Second},
	}
	o := runner.Options{Target: t}
	for _, f := range tune {
		f(t, &o)
	}
	run, err := runner.RunFeatures(context.Background(), o, fsys)
	Expect(err).NotTo(HaveOccurred())
	return fakeRun{host: host, target: t, run: run, bodies: log}
}
