package host_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/config"
	"github.com/conform-mcp/conform/impl/host"
)

// startHost runs the host of cfg over HTTP for one spec.
func startHost(cfg config.Config, dataDir string) *httptest.Server {
	h, err := host.New(cfg, host.Options{DataDir: dataDir, Auth: fakeAuthority{}})
	Expect(err).NotTo(HaveOccurred())
	srv := httptest.NewServer(h.Handler())
	DeferCleanup(func() {
		srv.Close()
		Expect(h.Close()).To(Succeed())
	})
	return srv
}

func defaultConfig() config.Config {
	cfg, err := config.Default()
	Expect(err).NotTo(HaveOccurred())
	return cfg
}

var _ = Describe("Reference host over raw HTTP", func() {
	var (
		srv     *httptest.Server
		dataDir string
	)

	BeforeEach(func() {
		dataDir = GinkgoT().TempDir()
		srv = startHost(defaultConfig(), dataDir)
	})

	challenge := func() string {
		return `Bearer scope="afs:read afs:write afs:delete afs:exec", resource_metadata="` + srv.URL + `/.well-known/oauth-protected-resource"`
	}

	expectUnauthorized := func(ex exchange) {
		Expect(ex.status).To(Equal(http.StatusUnauthorized))
		Expect(ex.header.Get("WWW-Authenticate")).To(Equal(challenge()))
		Expect(ex.header.Get("Content-Type")).To(Equal("application/json"))
		Expect(string(ex.body)).To(Equal(`{"error":"Unauthorized"}`))
	}

	Describe("gates 1 and 2 (source 5, 7.2)", func() {
		It("lists tools anonymously, without content tools when no collection is declared", func() {
			ex := post(srv, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			Expect(ex.status).To(Equal(http.StatusOK))
			var reply struct {
				Result struct {
					Tools []struct{ Name string } `json:"tools"`
				} `json:"result"`
			}
			Expect(json.Unmarshal(ex.body, &reply)).To(Succeed())
			var names []string
			for _, t := range reply.Result.Tools {
				names = append(names, t.Name)
			}
			Expect(names).To(ConsistOf("afs_list", "afs_stat", "afs_read", "afs_write", "afs_delete", "afs_search", "afs_explain", "afs_exec"))
		})

		It("answers resources/list and prompts/list anonymously", func() {
			Expect(post(srv, "", `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`).body).To(ContainSubstring(`"resources":[]`))
			Expect(post(srv, "", `{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`).body).To(ContainSubstring(`"prompts":[]`))
		})

		It("answers an anonymous privileged call and an unknown tool with the same 401", func() {
			privileged := post(srv, "", callBody("afs_write", map[string]any{"path": "/overlay/scratch.txt", "content": "x"}))
			unknown := post(srv, "", callBody("no_such_tool", map[string]any{"path": "/"}))
			for _, ex := range []exchange{privileged, unknown} {
				expectUnauthorized(ex)
			}
			// A rejected credential gets the same body; its challenge adds
			// error="invalid_token" (RFC 6750 3), which tells the caller
			// only what it sent.
			rejected := post(srv, "not-a-credential-of-this-host", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			Expect(rejected.status).To(Equal(http.StatusUnauthorized))
			Expect(rejected.header.Get("WWW-Authenticate")).To(Equal(`Bearer error="invalid_token", ` + strings.TrimPrefix(challenge(), "Bearer ")))
			Expect(string(rejected.body)).To(Equal(`{"error":"Unauthorized"}`))
		})

		It("refuses an anonymous batch that holds a privileged call", func() {
			expectUnauthorized(post(srv, "", "["+callBody("afs_read", map[string]any{"path": "/public/readme.md"})+","+
				callBody("afs_delete", map[string]any{"path": "/overlay/scratch.txt"})+"]"))
		})

		It("serves the resource metadata the challenge points at", func() {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/.well-known/oauth-protected-resource", nil)
			Expect(do(req).status).To(Equal(http.StatusOK))
		})

		It("lets a credential reach an unknown tool, which the SDK answers as a JSON-RPC error", func() {
			ex := post(srv, staticToken, callBody("no_such_tool", map[string]any{}))
			Expect(ex.status).To(Equal(http.StatusOK))
			Expect(string(ex.body)).To(ContainSubstring(`"error"`))
		})
	})

	Describe("transport failures", func() {
		It("answers GET and DELETE with 405 and Allow: POST", func() {
			for _, m := range []string{http.MethodGet, http.MethodDelete} {
				req, _ := http.NewRequest(m, srv.URL+"/mcp", nil)
				ex := do(req)
				Expect(ex.status).To(Equal(http.StatusMethodNotAllowed))
				Expect(ex.header.Get("Allow")).To(Equal("POST"))
			}
		})

		It("answers a wrong content type with 415", func() {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			req.Header.Set("Content-Type", "text/plain")
			Expect(do(req).status).To(Equal(http.StatusUnsupportedMediaType))
		})

		It("answers a body over 1 MiB with 413 and a JSON-RPC error", func() {
			ex := post(srv, "", callBody("afs_read", map[string]any{"path": "/" + strings.Repeat("a", 2<<20)}))
			Expect(ex.status).To(Equal(http.StatusRequestEntityTooLarge))
			Expect(string(ex.body)).To(ContainSubstring(`"code":-32600`))
		})

		It("answers malformed JSON with 400 and a parse error", func() {
			ex := post(srv, "", `{"jsonrpc":"2.0","method":`)
			Expect(ex.status).To(Equal(http.StatusBadRequest))
			Expect(string(ex.body)).To(ContainSubstring(`"code":-32700`))
		})

		It("serves a client that sends no Accept header (RFC 9110 12.5.1)", func() {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			req.Header.Set("Content-Type", "application/json")
			Expect(do(req).status).To(Equal(http.StatusOK))
		})
	})

	Describe("gate 3 (source 5.7, 7.4)", func() {
		It("reads an opened path anonymously", func() {
			Expect(text(callTool(srv, "", "afs_read", map[string]any{"path": "/public/readme.md"}))).To(HavePrefix("# Public readme"))
		})

		It("lists an opened directory", func() {
			r := callTool(srv, "", "afs_list", map[string]any{"path": "/public"})
			Expect(text(r)).To(ContainSubstring("/public/readme.md"))
			Expect(r.StructuredContent["entries"]).To(HaveLen(1))
		})

		DescribeTable("refuses base paths to every caller, the owner included",
			func(token, tool, path, want string) {
				arguments := map[string]any{"path": path}
				if tool == "afs_write" {
					arguments["content"] = "x"
				}
				Expect(inCallError(callTool(srv, token, tool, arguments))).To(Equal(want))
			},
			Entry("anonymous read", "", "afs_read", "/base/notes.txt", "AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot read base paths; declare a networkRead rule or use an overlay"),
			Entry("owner read", staticToken, "afs_read", "/base/notes.txt", "AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot read base paths; declare a networkRead rule or use an overlay"),
			Entry("anonymous list", "", "afs_list", "/base", "AFS_FORBIDDEN: Forbidden at /base: network clients cannot list base paths; declare a networkRead rule or use an overlay"),
			Entry("owner list", staticToken, "afs_list", "/base", "AFS_FORBIDDEN: Forbidden at /base: network clients cannot list base paths; declare a networkRead rule or use an overlay"),
			Entry("anonymous stat", "", "afs_stat", "/base/notes.txt", "AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot stat base paths; declare a networkRead rule or use an overlay"),
			Entry("owner write", staticToken, "afs_write", "/base/notes.txt", "AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot write base paths; use a resolver overlay or internal code"),
			Entry("owner write of a read-opened path", staticToken, "afs_write", "/public/readme.md", "AFS_FORBIDDEN: Forbidden at /public/readme.md: network clients cannot write base paths; use a resolver overlay or internal code"),
			Entry("missing closed path: forbidden, never not found", "", "afs_stat", "/base/no-such-file", "AFS_FORBIDDEN: Forbidden at /base/no-such-file: network clients cannot stat base paths; declare a networkRead rule or use an overlay"),
			Entry("a spelling cannot climb out of an open tree", "", "afs_read", "/public/../base/notes.txt", `AFS_INVALID_PATH: Invalid path: /public/../base/notes.txt: the path contains a ".." segment`),
			Entry("doubled slashes are judged canonically", "", "afs_read", "//base//notes.txt", "AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot read base paths; declare a networkRead rule or use an overlay"),
			Entry("missing opened path", "", "afs_read", "/public/no-such-file", "AFS_NOT_FOUND: Path not found: /public/no-such-file"),
		)
	})

	Describe("overlays and gate 4", func() {
		It("writes through the overlay to the data directory", func() {
			r := callTool(srv, staticToken, "afs_write", map[string]any{"path": "/overlay/scratch.txt", "content": "hello"})
			Expect(text(r)).To(ContainSubstring("Wrote 5 bytes to /overlay/scratch.txt"))
			Expect(os.ReadFile(filepath.Join(dataDir, "overlay", "scratch.txt"))).To(Equal([]byte("hello")))
			callTool(srv, staticToken, "afs_write", map[string]any{"path": "/overlay/scratch.txt", "content": "!", "mode": "append"})
			Expect(text(callTool(srv, "", "afs_read", map[string]any{"path": "/overlay/scratch.txt"}))).To(Equal("hello!"))
			Expect(text(callTool(srv, staticToken, "afs_delete", map[string]any{"path": "/overlay/scratch.txt"}))).To(Equal("Deleted /overlay/scratch.txt"))
		})

		It("refuses a write the read-only overlay's provider lacks, and stat omits it", func() {
			Expect(inCallError(callTool(srv, staticToken, "afs_write", map[string]any{"path": "/overlay/readonly/about.md", "content": "x"}))).
				To(Equal("AFS_NOT_SUPPORTED: Not supported at /overlay/readonly/about.md: the provider does not implement write"))
			r := callTool(srv, "", "afs_stat", map[string]any{"path": "/overlay/readonly/about.md"})
			Expect(r.StructuredContent["capabilities"]).To(Equal([]any{"list", "read", "stat", "search", "explain"}))
		})

		It("refuses exec at gate 4 on an opened path", func() {
			Expect(inCallError(callTool(srv, staticToken, "afs_exec", map[string]any{"path": "/overlay/scratch.txt"}))).
				To(Equal("AFS_NOT_SUPPORTED: Not supported at /overlay/scratch.txt: the provider does not implement exec"))
		})

		It("reports the caller's access in afs_stat", func() {
			anon := callTool(srv, "", "afs_stat", map[string]any{"path": "/public/readme.md"})
			Expect(anon.StructuredContent["access"]).To(HaveKeyWithValue("caller", "anonymous"))
			owner := callTool(srv, staticToken, "afs_stat", map[string]any{"path": "/public/readme.md"})
			Expect(owner.StructuredContent["access"]).To(HaveKeyWithValue("caller", "owner"))
			Expect(owner.StructuredContent["access"]).To(HaveKeyWithValue("network", anon.StructuredContent["network"]))
		})

		It("explains the path in plain language", func() {
			Expect(text(callTool(srv, "", "afs_explain", map[string]any{"path": "/public/readme.md"}))).
				To(ContainSubstring("networkRead rule /public opens list read stat search explain to network clients"))
		})

		It("searches an opened tree", func() {
			Expect(text(callTool(srv, "", "afs_search", map[string]any{"path": "/public", "query": "networkRead"}))).
				To(ContainSubstring("/public/readme.md:3:"))
		})
	})

	DescribeTable("invalid arguments are in-call errors, never a crash",
		func(tool string, arguments any, want string) {
			Expect(inCallError(callTool(srv, staticToken, tool, arguments))).To(Equal(want))
		},
		Entry("missing path", "afs_read", map[string]any{}, "AFS_INVALID_ARGUMENT: Invalid arguments for afs_read: path is required"),
		Entry("no arguments", "afs_stat", nil, "AFS_INVALID_ARGUMENT: Invalid arguments for afs_stat: path is required"),
		Entry("path of the wrong type", "afs_read", map[string]any{"path": 42}, "AFS_INVALID_ARGUMENT: Invalid arguments for afs_read: path must be a string"),
		Entry("arguments not an object", "afs_read", []string{"/public"}, "AFS_INVALID_ARGUMENT: Invalid arguments for afs_read: arguments must be a JSON object"),
		Entry("unknown argument", "afs_read", map[string]any{"path": "/public", "force": true}, "AFS_INVALID_ARGUMENT: Invalid arguments for afs_read: unknown argument force (known: path, offset, length)"),
		Entry("depth out of range", "afs_list", map[string]any{"path": "/public", "depth": 0}, "AFS_INVALID_ARGUMENT: Invalid arguments for afs_list: depth must be between 1 and 32"),
		Entry("fractional limit", "afs_list", map[string]any{"path": "/public", "limit": 1.5}, "AFS_INVALID_ARGUMENT: Invalid arguments for afs_list: limit must be an integer"),
		Entry("bad glob", "afs_list", map[string]any{"path": "/public", "pattern": "[a"}, "AFS_INVALID_ARGUMENT: Invalid arguments for afs_list: pattern is not a valid glob"),
		Entry("unknown write mode", "afs_write", map[string]any{"path": "/overlay/x", "content": "x", "mode": "truncate"}, "AFS_INVALID_ARGUMENT: Invalid arguments for afs_write: mode must be one of overwrite, append, create"),
		Entry("write without content", "afs_write", map[string]any{"path": "/overlay/x"}, "AFS_INVALID_ARGUMENT: Invalid arguments for afs_write: content is required"),
		Entry("empty query", "afs_search", map[string]any{"path": "/public", "query": ""}, "AFS_INVALID_ARGUMENT: Invalid arguments for afs_search: query must not be empty"),
		Entry("args of the wrong type", "afs_exec", map[string]any{"path": "/overlay/x", "args": "ls"}, "AFS_INVALID_ARGUMENT: Invalid arguments for afs_exec: args must be an array of strings"),
		Entry("negative offset", "afs_read", map[string]any{"path": "/public/readme.md", "offset": -1}, "AFS_INVALID_ARGUMENT: Invalid arguments for afs_read: offset must be between 0 and 9223372036854775807"),
		Entry("length over the read limit", "afs_read", map[string]any{"path": "/public/readme.md", "length": 1<<20 + 1}, "AFS_INVALID_ARGUMENT: Invalid arguments for afs_read: length must be between 1 and 1048576"),
		Entry("a cursor that is no path", "afs_list", map[string]any{"path": "/public", "cursor": "page-2"}, "AFS_INVALID_ARGUMENT: Invalid arguments for afs_list: cursor must be the next_cursor of a previous listing"),
		Entry("NUL in the path", "afs_read", map[string]any{"path": "/public/a\x00b"}, "AFS_INVALID_PATH: Invalid path: /public/a\x00b: the path contains a NUL byte"),
	)

	It("serves the discovery document (PRODUCT 6)", func() {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/.well-known/mcp.json", nil)
		ex := do(req)
		Expect(ex.status).To(Equal(http.StatusOK))
		Expect(ex.header.Get("Content-Type")).To(Equal("application/json"))
		Expect(ex.body).To(MatchJSON(`{
			"name": "conform reference host",
			"description": "Reference tool host of the conform conformance suite.",
			"url": "` + srv.URL + `/mcp",
			"transport": "streamable-http",
			"authentication": {"required": false, "schemes": ["bearer"], "resource_metadata": "` + srv.URL + `/.well-known/oauth-protected-resource"},
			"tools": {
				"anonymous": ["afs_list", "afs_stat", "afs_read", "afs_search", "afs_explain"],
				"authenticated": ["afs_write", "afs_delete", "afs_exec"]
			}
		}`))
	})
})

var _ = Describe("Reference host with content collections", func() {
	var srv *httptest.Server

	BeforeEach(func() {
		cfg := defaultConfig()
		cfg.Collections = []config.Collection{{Name: "docs", Path: "/public"}}
		srv = startHost(cfg, GinkgoT().TempDir())
	})

	It("lists the content tools and lets anonymous callers use them", func() {
		ex := post(srv, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		for _, name := range []string{"search_content", "list_content", "get_content"} {
			Expect(string(ex.body)).To(ContainSubstring(`"name":"` + name + `"`))
		}
		Expect(text(callTool(srv, "", "list_content", map[string]any{}))).To(ContainSubstring("docs/readme.md"))
		Expect(text(callTool(srv, "", "search_content", map[string]any{"query": "readme"}))).To(ContainSubstring("docs/readme.md"))
		Expect(text(callTool(srv, "", "get_content", map[string]any{"collection": "docs", "id": "readme.md"}))).To(HavePrefix("# Public readme"))
	})

	It("answers unknown items and collections in-call", func() {
		Expect(inCallError(callTool(srv, "", "get_content", map[string]any{"collection": "docs", "id": "../base/notes.txt"}))).
			To(Equal("CONTENT_NOT_FOUND: Content not found: docs/../base/notes.txt"))
		Expect(inCallError(callTool(srv, "", "list_content", map[string]any{"collection": "nope"}))).
			To(Equal("CONTENT_UNKNOWN_COLLECTION: Unknown collection: nope"))
	})
})

var _ = Describe("Reference host with content collections and a small read limit", func() {
	It("gets the first part of an item and says where the rest is", func() {
		cfg := defaultConfig()
		cfg.Collections = []config.Collection{{Name: "docs", Path: "/public"}}
		cfg.Limits.ReadBytes = 8
		srv := startHost(cfg, GinkgoT().TempDir())
		r := callTool(srv, "", "get_content", map[string]any{"collection": "docs", "id": "readme.md"})
		Expect(text(r)).To(Equal("# Public"))
		Expect(r.StructuredContent).To(HaveKeyWithValue("truncated", true))
		Expect(r.Content).To(HaveLen(2))
		Expect(r.Content[1].Text).To(MatchRegexp(`^Truncated: this is the first 8 bytes of \d+; read the rest of /public/readme.md with afs_read and an offset$`))
	})
})

var _ = Describe("host.New", func() {
	It("needs an authority", func() {
		_, err := host.New(defaultConfig(), host.Options{})
		Expect(err).To(MatchError("host: an Authority is required"))
	})

	It("needs a data directory, which Open provides when its caller gives none", func() {
		_, err := host.New(defaultConfig(), host.Options{Auth: fakeAuthority{}})
		Expect(err).To(MatchError("host: a data directory is required"))
		h, err := host.Open(defaultConfig(), host.OpenOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(h.Close()).To(Succeed())
	})

	It("creates the overlay directory under the data directory on start", func() {
		dir := GinkgoT().TempDir()
		startHost(defaultConfig(), dir)
		Expect(filepath.Join(dir, "overlay")).To(BeADirectory())
	})
})

var _ = Describe("Bounded reads and paged listings over the wire (issue 8 item 10, issue 9 item 4)", func() {
	var srv *httptest.Server

	BeforeEach(func() {
		cfg := defaultConfig()
		cfg.Limits = config.Limits{ReadBytes: 8, SearchFileBytes: 16}
		dataDir := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(dataDir, "overlay", "many"), 0o700)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dataDir, "overlay", "long.txt"), []byte("0123456789abcdefghij needle"), 0o600)).To(Succeed())
		for _, name := range []string{"a", "b", "c"} {
			Expect(os.WriteFile(filepath.Join(dataDir, "overlay", "many", name), nil, 0o600)).To(Succeed())
		}
		srv = startHost(cfg, dataDir)
	})

	It("reads a file in parts and says where each part ends", func() {
		r := callTool(srv, "", "afs_read", map[string]any{"path": "/overlay/long.txt"})
		Expect(text(r)).To(Equal("01234567"))
		Expect(r.Content).To(HaveLen(2))
		Expect(r.Content[1].Text).To(Equal("Truncated: bytes 0 to 8 of 27; call afs_read with offset 8 to read on"))
		Expect(r.StructuredContent).To(HaveKeyWithValue("truncated", true))
		Expect(r.StructuredContent).To(HaveKeyWithValue("next_offset", BeEquivalentTo(8)))

		r = callTool(srv, "", "afs_read", map[string]any{"path": "/overlay/long.txt", "offset": 24})
		Expect(text(r)).To(Equal("dle"))
		Expect(r.Content).To(HaveLen(1))
		Expect(r.StructuredContent).To(HaveKeyWithValue("truncated", false))
	})

	It("searches files within the limit and counts the others", func() {
		// long.txt and the read-only overlay's about.md are over the limit.
		Expect(text(callTool(srv, "", "afs_search", map[string]any{"path": "/overlay", "query": "needle"}))).
			To(Equal(`0 matches for "needle" under /overlay; 2 files larger than 16 bytes were searched by name only`))
	})

	It("pages a listing with next_cursor", func() {
		r := callTool(srv, "", "afs_list", map[string]any{"path": "/overlay/many", "limit": 2})
		Expect(r.StructuredContent).To(HaveKeyWithValue("next_cursor", "/overlay/many/b"))
		Expect(text(r)).To(HaveSuffix(`Truncated: call afs_list again with cursor "/overlay/many/b" for the next entries`))
		r = callTool(srv, "", "afs_list", map[string]any{"path": "/overlay/many", "limit": 2, "cursor": "/overlay/many/b"})
		Expect(r.StructuredContent["entries"]).To(ConsistOf(HaveKeyWithValue("path", "/overlay/many/c")))
		Expect(r.StructuredContent).NotTo(HaveKey("next_cursor"))
	})
})
