package host_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/host"
	"github.com/conform-mcp/conform/impl/oauth"
	"github.com/conform-mcp/conform/impl/owner/strength"
)

// testOwnerSecret is the owner secret of the hosts these specs open.
const testOwnerSecret = "4b8e1d7a2f9c03e6b5d8a1f4c7e20b93d6a5f8c1e4b7d02a9f3c6e8b1d4a7f20"

// signInAs runs the device grant on the wire against the real OAuth server
// and approves it on the consent page with the given role.
func signInAs(srv *httptest.Server, roleName string) string {
	GinkgoHelper()
	form := func(path string, v url.Values) map[string]any {
		resp, err := http.PostForm(srv.URL+path, v)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		var out map[string]any
		Expect(json.NewDecoder(resp.Body).Decode(&out)).To(Succeed())
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "%v", out)
		return out
	}
	resp, err := http.Post(srv.URL+"/oauth/register", "application/json",
		strings.NewReader(`{"redirect_uris":["http://127.0.0.1/cb"]}`))
	Expect(err).NotTo(HaveOccurred())
	var reg struct {
		ClientID string `json:"client_id"`
	}
	Expect(json.NewDecoder(resp.Body).Decode(&reg)).To(Succeed())
	Expect(resp.Body.Close()).To(Succeed())
	da := form("/oauth/device_authorization", url.Values{"client_id": {reg.ClientID}})
	Expect(oauth.ApproveDevice(context.Background(), srv.Client(), srv.URL, testOwnerSecret, da["user_code"].(string), roleName)).To(Succeed())
	tok := form("/oauth/token", url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:device_code"},
		"device_code": {da["device_code"].(string)}, "client_id": {reg.ClientID}})
	Expect(tok).To(HaveKeyWithValue("scope", Not(BeEmpty())))
	return tok["access_token"].(string)
}

var _ = Describe("Roles on the wire (PRODUCT.md section 6)", func() {
	var (
		srv  *httptest.Server
		data string
	)

	BeforeEach(func() {
		data = GinkgoT().TempDir()
		h, err := host.Open(defaultConfig(), host.OpenOptions{DataDir: data, OwnerSecret: testOwnerSecret, JudgeSecret: strength.Check})
		Expect(err).NotTo(HaveOccurred())
		srv = httptest.NewServer(h.Handler())
		DeferCleanup(func() {
			srv.Close()
			Expect(h.Close()).To(Succeed())
		})
	})

	It("refuses a guest's write with the 403 scope challenge and leaves the file unchanged", func() {
		owner, guest := signInAs(srv, "owner"), signInAs(srv, "guest")
		file := filepath.Join(data, "overlay", "scratch.txt")
		Expect(text(callTool(srv, owner, "afs_write", map[string]any{"path": "/overlay/scratch.txt", "content": "kept"}))).
			To(ContainSubstring("Wrote 4 bytes"))

		// The challenge names what the guest holds beside what the call needs.
		for tool, scope := range map[string]string{"afs_write": "afs:read afs:write", "afs_delete": "afs:read afs:delete",
			"afs_exec": "afs:read afs:exec"} {
			ex := post(srv, guest, callBody(tool, map[string]any{"path": "/overlay/scratch.txt", "content": "replaced"}))
			Expect(ex.status).To(Equal(http.StatusForbidden), tool)
			Expect(ex.header.Get("WWW-Authenticate")).To(Equal(`Bearer error="insufficient_scope", scope="` + scope +
				`", resource_metadata="` + srv.URL + `/.well-known/oauth-protected-resource"`))
			Expect(string(ex.body)).To(ContainSubstring(`"error":"insufficient_scope"`))
			Expect(string(ex.body)).NotTo(ContainSubstring(`"result"`))
		}
		Expect(os.ReadFile(file)).To(Equal([]byte("kept")))

		By("showing the guest what it may do in afs_stat")
		stat := callTool(srv, guest, "afs_stat", map[string]any{"path": "/overlay/scratch.txt"})
		Expect(stat.StructuredContent["access"]).To(HaveKeyWithValue("caller", "guest"))
		Expect(stat.StructuredContent["access"]).To(HaveKeyWithValue("scopes", []any{"afs:read"}))
		Expect(text(callTool(srv, guest, "afs_read", map[string]any{"path": "/overlay/scratch.txt"}))).To(Equal("kept"))
	})

	It("still holds the owner to gate 3 exactly as before (source 5.7)", func() {
		owner := signInAs(srv, "owner")
		Expect(inCallError(callTool(srv, owner, "afs_write", map[string]any{"path": "/base/notes.txt", "content": "x"}))).
			To(Equal("AFS_FORBIDDEN: Forbidden at /base/notes.txt: network clients cannot write base paths; use a resolver overlay or internal code"))
	})

	It("advertises the scopes in both metadata documents", func() {
		for _, doc := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server"} {
			resp, err := http.Get(srv.URL + doc)
			Expect(err).NotTo(HaveOccurred())
			var m map[string]any
			Expect(json.NewDecoder(resp.Body).Decode(&m)).To(Succeed())
			Expect(resp.Body.Close()).To(Succeed())
			Expect(m).To(HaveKeyWithValue("scopes_supported", []any{"afs:read", "afs:write", "afs:delete", "afs:exec"}), doc)
		}
	})
})
