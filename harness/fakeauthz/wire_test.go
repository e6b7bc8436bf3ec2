package fakeauthz_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
)

// The helpers below speak to a running fake as a client would: they read
// what the variants change, never the fake's insides.

const redirectURI = "http://127.0.0.1:8765/callback"

// verifier and challenge are one PKCE pair (RFC 7636 4.2, S256).
var verifier = strings.Repeat("v", 43)

func challenge() string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// start runs a fake with the given variants for one spec.
func start(breaks ...fakeauthz.Break) *fakeauthz.Host {
	h := fakeauthz.Start(breaks...)
	DeferCleanup(h.Close)
	return h
}

var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func do(req *http.Request) (*http.Response, []byte) {
	resp, err := noFollow.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp, body
}

func jsonOf(body []byte) map[string]any {
	var m map[string]any
	Expect(json.Unmarshal(body, &m)).To(Succeed(), string(body))
	return m
}

// asMetadata is the authorization server's metadata and its content type.
func asMetadata(h *fakeauthz.Host) (map[string]any, string) {
	req, _ := http.NewRequest(http.MethodGet, h.AS.URL+"/.well-known/openid-configuration/tenant", nil)
	resp, body := do(req)
	return jsonOf(body), resp.Header.Get("Content-Type")
}

// prMetadata is the protected resource metadata, or nil when none is served.
func prMetadata(h *fakeauthz.Host) map[string]any {
	req, _ := http.NewRequest(http.MethodGet, h.RS.URL+"/.well-known/oauth-protected-resource/mcp", nil)
	resp, body := do(req)
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	return jsonOf(body)
}

// register posts a registration and returns its status and body.
func register(h *fakeauthz.Host, metadata map[string]any) (int, map[string]any) {
	data, _ := json.Marshal(metadata)
	req, _ := http.NewRequest(http.MethodPost, h.Issuer()+"/register", strings.NewReader(string(data)))
	req.Header.Set("Content-Type", "application/json")
	resp, body := do(req)
	return resp.StatusCode, jsonOf(body)
}

// client registers a public client with the default redirect URI.
func client(h *fakeauthz.Host) string {
	status, reg := register(h, map[string]any{"redirect_uris": []string{redirectURI}})
	Expect(status).To(Equal(http.StatusCreated))
	return reg["client_id"].(string)
}

// authRequest is a valid authorization request of clientID, with change
// applied to its parameters.
func authRequest(h *fakeauthz.Host, clientID string, change func(url.Values)) url.Values {
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirectURI},
		"code_challenge": {challenge()}, "code_challenge_method": {"S256"}, "state": {"s1"},
		"scope": {fakeauthz.ScopeTools + " " + fakeauthz.ScopeWrite}, "resource": {h.Endpoint()}}
	if change != nil {
		change(q)
	}
	return q
}

// authorize sends an authorization request by GET and returns the status
// and, for a redirect, the Location's query.
func authorize(h *fakeauthz.Host, q url.Values) (int, url.Values, http.Header) {
	req, _ := http.NewRequest(http.MethodGet, h.Issuer()+"/authorize?"+q.Encode(), nil)
	resp, _ := do(req)
	var back url.Values
	if loc, err := url.Parse(resp.Header.Get("Location")); err == nil && loc.String() != "" {
		back = loc.Query()
	}
	return resp.StatusCode, back, resp.Header
}

// code obtains a code for clientID's valid request.
func code(h *fakeauthz.Host, clientID string) string {
	status, back, _ := authorize(h, authRequest(h, clientID, nil))
	Expect(status).To(Equal(http.StatusFound))
	Expect(back.Get("code")).NotTo(BeEmpty(), back.Encode())
	return back.Get("code")
}

// token posts a token request; basic, when not nil, is sent as HTTP Basic.
func token(h *fakeauthz.Host, form url.Values, basic ...string) (int, map[string]any, http.Header) {
	req, _ := http.NewRequest(http.MethodPost, h.Issuer()+"/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if len(basic) == 2 {
		req.SetBasicAuth(basic[0], basic[1])
	}
	resp, body := do(req)
	return resp.StatusCode, jsonOf(body), resp.Header
}

// redeem redeems a code of clientID with the right verifier.
func redeem(h *fakeauthz.Host, clientID, c string, extra ...string) (int, map[string]any) {
	form := url.Values{"grant_type": {"authorization_code"}, "code": {c}, "client_id": {clientID},
		"redirect_uri": {redirectURI}, "code_verifier": {verifier}}
	for i := 0; i+1 < len(extra); i += 2 {
		form.Set(extra[i], extra[i+1])
	}
	status, body, _ := token(h, form)
	return status, body
}

// tokens runs clientID's whole flow and returns the token response.
func tokens(h *fakeauthz.Host, clientID string) map[string]any {
	status, body := redeem(h, clientID, code(h, clientID))
	Expect(status).To(Equal(http.StatusOK), body)
	return body
}

// refresh refreshes with rt for clientID, scope omitted when "-".
func refresh(h *fakeauthz.Host, clientID, rt, scope string) (int, map[string]any) {
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {clientID}}
	if scope != "-" {
		form.Set("scope", scope)
	}
	status, body, _ := token(h, form)
	return status, body
}

// mcp sends one JSON-RPC request to the MCP endpoint with the given
// Authorization header value ("" for none) and session.
func mcp(h *fakeauthz.Host, authorization, session, method string) *http.Response {
	msg := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{}}`
	req, _ := http.NewRequest(http.MethodPost, h.Endpoint(), strings.NewReader(msg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := noFollow.Do(req)
	Expect(err).NotTo(HaveOccurred())
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp
}

// session opens a session with the bearer token and returns its id.
func session(h *fakeauthz.Host, bearer string) string {
	resp := mcp(h, "Bearer "+bearer, "", "initialize")
	Expect(resp.StatusCode).To(Equal(http.StatusOK))
	return resp.Header.Get("Mcp-Session-Id")
}

// claims decodes a JWT access token's claims.
func claims(jwt string) map[string]any {
	parts := strings.Split(jwt, ".")
	Expect(parts).To(HaveLen(3), "not a JWT: "+jwt)
	data, err := base64.RawURLEncoding.DecodeString(parts[1])
	Expect(err).NotTo(HaveOccurred())
	return jsonOf(data)
}
