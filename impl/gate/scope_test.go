package gate_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/baseurl"
	"github.com/conform-mcp/conform/impl/caller"
	"github.com/conform-mcp/conform/impl/gate"
	"github.com/conform-mcp/conform/impl/role"
)

// roleVerifier accepts "<role>-token" for every role.
type roleVerifier struct{}

func (roleVerifier) Verify(_ context.Context, token string) (caller.Caller, error) {
	if r, ok := strings.CutSuffix(token, "-token"); ok && role.Known(r) {
		return caller.Caller{ClientID: "client-" + r, Role: r}, nil
	}
	return caller.Caller{}, errors.New("unknown credential")
}

var _ = Describe("The role check after gate 2", func() {
	var (
		p passed
		h http.Handler
	)

	BeforeEach(func() {
		p = passed{}
		next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			p = passed{called: true, caller: caller.FromContext(r.Context()), body: string(body)}
			w.WriteHeader(http.StatusOK)
		})
		h = gate.New(next, gate.Config{
			Verifier:       roleVerifier{},
			AnonymousTools: []string{"afs_read"},
			ToolScopes: map[string]string{"afs_read": role.ScopeRead, "afs_write": role.ScopeWrite,
				"afs_delete": role.ScopeDelete, "afs_exec": role.ScopeExec},
			BaseURL: baseurl.Resolver{},
		})
	})

	as := func(r string) []string { return []string{"Bearer " + r + "-token"} }

	// The MCP authorization specification's scope challenge (RFC 6750 3.1).
	// scopes is the challenge's scope: what the role holds and what the
	// request lacks (the MCP specification's recommended approach).
	expectChallenge := func(auth []string, body, scopes string, missing ...string) {
		GinkgoHelper()
		rec := call(h, auth, body)
		Expect(rec.Code).To(Equal(http.StatusForbidden))
		Expect(p.called).To(BeFalse(), "the tool must not run")
		Expect(rec.Header().Get("WWW-Authenticate")).To(Equal(`Bearer error="insufficient_scope", scope="` + scopes +
			`", resource_metadata="http://host.test/.well-known/oauth-protected-resource"`))
		Expect(rec.Header().Get("Content-Type")).To(Equal("application/json"))
		var reply map[string]string
		Expect(json.Unmarshal(rec.Body.Bytes(), &reply)).To(Succeed())
		Expect(reply).To(HaveKeyWithValue("error", "insufficient_scope"))
		for _, m := range missing {
			Expect(reply["error_description"]).To(ContainSubstring(m))
		}
	}

	It("refuses a guest's write, delete and exec with 403, naming the scope each needs beside the one it holds", func() {
		expectChallenge(as("guest"), toolCall("afs_write"), "afs:read afs:write", "afs:write")
		expectChallenge(as("guest"), toolCall("afs_delete"), "afs:read afs:delete", "afs:delete")
		expectChallenge(as("guest"), toolCall("afs_exec"), "afs:read afs:exec", "afs:exec")
		expectChallenge(as("member"), toolCall("afs_exec"), "afs:read afs:write afs:exec", "afs:exec")
	})

	It("names every missing scope of a batch once, in a fixed order", func() {
		expectChallenge(as("guest"), "["+toolCall("afs_exec")+","+toolCall("afs_write")+","+
			toolCall("afs_read")+","+toolCall("afs_exec")+"]", "afs:read afs:write afs:exec", "afs:exec", "afs:write")
	})

	It("holds each role to its scopes", func() {
		for _, r := range role.Names {
			for tool, scope := range map[string]string{"afs_read": role.ScopeRead, "afs_write": role.ScopeWrite,
				"afs_delete": role.ScopeDelete, "afs_exec": role.ScopeExec} {
				p = passed{}
				if role.Allows(r, scope) {
					Expect(call(h, as(r), toolCall(tool)).Code).To(Equal(http.StatusOK), r+" "+tool)
					Expect(p.caller.Role).To(Equal(r))
				} else {
					expectChallenge(as(r), toolCall(tool), strings.Join(append(role.ScopesOf(r), scope), " "), scope)
				}
			}
		}
	})

	It("lets any credential through to what needs no scope: other methods and unknown tool names", func() {
		Expect(call(h, as("guest"), rpc("tools/list", "")).Code).To(Equal(http.StatusOK))
		Expect(call(h, as("guest"), toolCall("no_such_tool")).Code).To(Equal(http.StatusOK))
		Expect(call(h, as("guest"), rpc("tools/call", `{"arguments":{}}`)).Code).To(Equal(http.StatusOK))
	})

	It("leaves the 401 of an anonymous or rejected caller exactly as it was", func() {
		for _, auth := range [][]string{nil, {"Bearer root-token"}, {"Basic x"}} {
			rec := call(h, auth, toolCall("afs_write"))
			Expect(rec.Code).To(Equal(http.StatusUnauthorized))
			want := `Bearer resource_metadata="http://host.test/.well-known/oauth-protected-resource"`
			if auth != nil {
				want = `Bearer error="invalid_token", resource_metadata="http://host.test/.well-known/oauth-protected-resource"`
			}
			Expect(rec.Header().Get("WWW-Authenticate")).To(Equal(want))
			Expect(rec.Body.String()).To(Equal(`{"error":"Unauthorized"}`))
		}
	})
})
