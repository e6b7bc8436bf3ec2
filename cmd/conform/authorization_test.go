package main_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
)

var _ = Describe("conform run --spec mcp-authorization against an MCP server that is not a tool host", func() {
	It("runs the pack, though an anonymous tools/list answers 401, and obtains a token through the approval command's stand-in", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		profile := filepath.Join(GinkgoT().TempDir(), "server.yaml")
		Expect(os.WriteFile(profile, []byte("target: "+h.Endpoint()+"\nmcp_authorization:\n  protected_request: {method: tools/list}\n"), 0o600)).To(Succeed())
		s := exits(conform(nil, "run", "--spec", "mcp-authorization", "--profile", profile, "--format", "progress"), 3)
		Expect(stderr(s)).NotTo(ContainSubstring("does not answer as an agent-facing tool host"))
		Expect(stdout(s)).To(ContainSubstring("(mcp-authorization/"), "the pack's own features ran")
		Expect(stdout(s)).To(ContainSubstring("set oauth.authorization_approval_command"))
		Expect(stdout(s)).To(MatchRegexp(`\d+ passed, 0 failed, \d+ not run`))
	})

	It("still holds the source pack to its own pre-flight when --spec names it", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		s := exits(conform(nil, "run", "--spec", "source", "--target", h.Endpoint()), 1)
		Expect(stderr(s)).To(ContainSubstring("does not answer as an agent-facing tool host"))
	})

	It("judges a server that challenges an anonymous tools/list for its MCP authorization when --spec is not given", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		s := exits(conform(nil, "run", "--target", h.Endpoint(), "--format", "pretty"), 3)
		Expect(stderr(s)).To(ContainSubstring("with a Bearer challenge"))
		Expect(stderr(s)).To(ContainSubstring("judging its MCP authorization (--spec mcp-authorization"))
		Expect(stdout(s)).To(ContainSubstring("(pack mcp-authorization)"))
	})

	It("runs the pack a profile's mcp_authorization block is for when --spec is not given", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		profile := filepath.Join(GinkgoT().TempDir(), "server.yaml")
		Expect(os.WriteFile(profile, []byte("target: "+h.Endpoint()+"\nmcp_authorization:\n  protected_request: {method: tools/list}\n"), 0o600)).To(Succeed())
		s := exits(conform(nil, "run", "--profile", profile, "--format", "pretty"), 3)
		Expect(stdout(s)).To(ContainSubstring("(pack mcp-authorization)"))
	})

	It("names both packs, sending nothing else, for an MCP server of neither kind when --spec is not given", func() {
		generic := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/mcp" {
				http.NotFound(w, r)
				return
			}
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.NewDecoder(r.Body).Decode(&req)
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"tools": []any{map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object"}}}}})
		}))
		DeferCleanup(generic.Close)
		s := exits(conform(nil, "run", "--target", generic.URL+"/mcp"), 2)
		Expect(stderr(s)).To(ContainSubstring("not as a tool host of the source document's kind"))
		Expect(stderr(s)).To(ContainSubstring("--spec mcp-authorization"))
		Expect(stderr(s)).To(ContainSubstring("--spec source"))
		Expect(stdout(s)).To(BeEmpty())
	})

	It("points a base URL to the MCP endpoint at /mcp when that one answers as an MCP server", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		s := exits(conform(nil, "run", "--spec", "mcp-authorization", "--target", h.RS.URL), 1)
		Expect(stderr(s)).To(ContainSubstring("does not answer as an MCP server"))
		Expect(stderr(s)).To(ContainSubstring("give --target " + h.RS.URL + "/mcp"))
	})

	It("reports the MCP endpoint as the target, and leaves a source profile's peer out", func() {
		h := fakeauthz.Start()
		DeferCleanup(h.Close)
		dir := GinkgoT().TempDir()
		profile := filepath.Join(dir, "source.yaml")
		Expect(os.WriteFile(profile, []byte("target: "+h.Endpoint()+"\npeer:\n  target: http://127.0.0.1:9\n  credential_env: PEER_TOKEN\nmcp_authorization:\n  protected_request: {method: tools/list}\n"), 0o600)).To(Succeed())
		report := filepath.Join(dir, "run.json")
		s := exits(conform([]string{"PEER_TOKEN=from-the-source-profile"}, "run", "--spec", "mcp-authorization", "--profile", profile, "--format", "json:"+report), 3)
		Expect(stderr(s)).NotTo(ContainSubstring("127.0.0.1:9"))
		data, err := os.ReadFile(report)
		Expect(err).NotTo(HaveOccurred())
		var run struct {
			Target string `json:"target"`
		}
		Expect(json.Unmarshal(data, &run)).To(Succeed())
		Expect(run.Target).To(Equal(h.Endpoint()))
	})
})
