package fakeauthz_test

import (
	"net/http"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
)

// The variants that reproduce verdicts real servers showed wrong (issue 21
// item 3) are shown answering as those servers did.
var _ = Describe("the variants reproducing real servers", func() {
	full := fakeauthz.ScopeTools + " " + fakeauthz.ScopeWrite

	It("LoopbackErrorRedirect answers another loopback port with an error redirect, not a code (item a)", func() {
		otherPort := func(q url.Values) { q.Set("redirect_uri", "http://127.0.0.1:9999/callback") }
		h := start()
		_, back, _ := authorize(h, authRequest(h, client(h), otherPort))
		Expect(back.Get("code")).NotTo(BeEmpty())
		h = start(fakeauthz.LoopbackErrorRedirect)
		status, back, _ := authorize(h, authRequest(h, client(h), otherPort))
		Expect(status).To(Equal(http.StatusFound))
		Expect(back.Get("error")).To(Equal("invalid_request"))
		Expect(back.Get("error_description")).To(Equal("Unregistered redirect_uri"))
		Expect(back).NotTo(HaveKey("code"))
	})

	It("ReauthorizationRevokes revokes a client's earlier tokens when it is authorized again (item b)", func() {
		run := func(h *fakeauthz.Host) int {
			id := client(h)
			credential := h.MintFor(id, "", h.Endpoint(), full)
			Expect(mcp(h, "Bearer "+credential, "", "initialize").StatusCode).To(Equal(http.StatusOK))
			code(h, id)
			return mcp(h, "Bearer "+credential, "", "initialize").StatusCode
		}
		Expect(run(start())).To(Equal(http.StatusOK))
		Expect(run(start(fakeauthz.ReauthorizationRevokes))).To(Equal(http.StatusUnauthorized))
	})

	It("LimitedTokenRefusedEverywhere refuses the limited token 403 insufficient_scope on every request (item e)", func() {
		h := start(fakeauthz.LimitedTokenRefusedEverywhere)
		limited := h.Target().Tokens.Limited
		for _, method := range []string{"initialize", "tools/list", "tools/call"} {
			resp := mcp(h, "Bearer "+limited, "", method)
			Expect(resp.StatusCode).To(Equal(http.StatusForbidden), method)
			Expect(resp.Header.Get("WWW-Authenticate")).To(ContainSubstring(`error="insufficient_scope"`), method)
		}
		Expect(mcp(h, "Bearer "+h.Target().Credential, "", "initialize").StatusCode).To(Equal(http.StatusOK))
	})

	It("ScopeErrorUnauthorized answers insufficient scope 401 (item f)", func() {
		h := start(fakeauthz.ScopeErrorUnauthorized)
		limited := h.Mint(h.Endpoint(), fakeauthz.ScopeTools, false)
		resp := mcp(h, "Bearer "+limited, session(h, limited), "tools/call")
		Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
		Expect(resp.Header.Get("WWW-Authenticate")).To(ContainSubstring(`error="insufficient_scope"`))
	})

	It("RefreshWidensAdvertised widens to an advertised scope and drops an unknown one (item g)", func() {
		h := start(fakeauthz.RefreshWidensAdvertised)
		id := client(h)
		rt := tokens(h, id)["refresh_token"].(string)
		_, body := refresh(h, id, rt, full+" conform:never-granted")
		Expect(body["scope"]).To(Equal(full))
		_, body = refresh(h, id, body["refresh_token"].(string), full+" openid")
		Expect(body["scope"]).To(Equal(full + " openid"))
	})

	It("MalformedTokenHangsUp closes the connection on a malformed token (item i)", func() {
		h := start(fakeauthz.MalformedTokenHangsUp)
		req, _ := http.NewRequest(http.MethodPost, h.Endpoint(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
		req.Header.Set("Authorization", "Bearer a b")
		_, err := noFollow.Do(req)
		Expect(err).To(HaveOccurred())
		Expect(mcp(h, "Bearer "+h.Target().Credential, "", "initialize").StatusCode).To(Equal(http.StatusOK))
	})

	It("AnyVerifier issues a code for plain and redeems any verifier (item k)", func() {
		h := start(fakeauthz.AnyVerifier)
		id := client(h)
		_, back, _ := authorize(h, authRequest(h, id, func(q url.Values) { q.Set("code_challenge_method", "plain") }))
		Expect(back.Get("code")).NotTo(BeEmpty())
		status, _ := redeem(h, id, code(h, id), "code_verifier", "anything-at-all-"+strings.Repeat("x", 40))
		Expect(status).To(Equal(http.StatusOK))
	})

	It("RefreshOnlyOfflineAccess advertises offline_access and issues refresh tokens only when asked for it (item o)", func() {
		h := start(fakeauthz.RefreshOnlyOfflineAccess)
		m, _ := asMetadata(h)
		Expect(m["scopes_supported"]).To(ContainElement("offline_access"))
		id := client(h)
		Expect(tokens(h, id)).NotTo(HaveKey("refresh_token"))
		_, back, _ := authorize(h, authRequest(h, id, func(q url.Values) { q.Set("scope", full+" offline_access") }))
		status, body := redeem(h, id, back.Get("code"))
		Expect(status).To(Equal(http.StatusOK))
		Expect(body).To(HaveKey("refresh_token"))
	})

	It("NoAuthorization serves every request without a token and no metadata (item p)", func() {
		h := start(fakeauthz.NoAuthorization)
		Expect(prMetadata(h)).To(BeNil())
		resp := mcp(h, "", "", "initialize")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(mcp(h, "", resp.Header.Get("Mcp-Session-Id"), "tools/list").StatusCode).To(Equal(http.StatusOK))
	})
})
