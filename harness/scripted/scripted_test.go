package scripted_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/scripted"
	"github.com/conform-mcp/conform/harness/wire"
)

// approve opens an authorization URL and returns where it redirects, as
// the stand-in browser does.
func approve(ctx context.Context, u string) (string, error) {
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if loc := resp.Header.Get("Location"); loc != "" {
		return loc, nil
	}
	return "", fmt.Errorf("answered %d", resp.StatusCode)
}

// recordingFlow is the harness's own code flow, approving as the stand-in
// browser does and keeping in loc where the authorization redirected.
func recordingFlow(loc *string) *oauthclient.CodeFlow {
	return &oauthclient.CodeFlow{HTTP: &http.Client{}, RedirectURI: "http://127.0.0.1:9/callback", Approve: func(ctx context.Context, u string) (string, error) {
		var err error
		*loc, err = approve(ctx, u)
		return *loc, err
	}}
}

// challenge is a Bearer challenge parameter of the answer to an anonymous
// call of the server's tool.
func challenge(srv *scripted.Server, param string) string {
	r, err := mcpclient.New(srv.Endpoint, nil).Call(context.Background(), "", "tools/call", map[string]any{"name": srv.Tool, "arguments": map[string]any{}})
	Expect(err).NotTo(HaveOccurred())
	Expect(r.Status).To(Equal(http.StatusUnauthorized))
	return wire.ChallengeParam(r.Header.Values("WWW-Authenticate"), "Bearer", param)
}

func get(u string) int {
	r, err := oauthclient.New("", oauthclient.Endpoints{}, nil).Get(context.Background(), u)
	Expect(err).NotTo(HaveOccurred())
	return r.Status
}

var _ = Describe("the mcp-authorization pack's scripted server", func() {
	var log *scripted.Log
	BeforeEach(func() { log = &scripted.Log{} })

	start := func(v scripted.Variant) *scripted.Server {
		srv, err := scripted.StartAuthz("first", v, log, scripted.AuthzOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
		return srv
	}

	It("is fakeauthz when compliant, every request recorded with its origin and answer", func() {
		srv := start(scripted.Compliant)
		Expect(challenge(srv, "resource_metadata")).To(Equal(srv.Metadata))
		Expect(get(srv.Metadata)).To(Equal(http.StatusOK))
		reqs := log.Requests()
		Expect(reqs).To(HaveLen(2), "a modern request, refused before the protocol is looked at")
		Expect(reqs[0].Origin).To(Equal("mcp"))
		Expect(reqs[0].Status).To(Equal(http.StatusUnauthorized))
		Expect(reqs[0].Seq).To(BeNumerically("<", reqs[1].Seq))
		Expect(reqs[1].URL.String()).To(Equal(srv.Metadata))
	})

	It("serves the metadata only where its challenge says with MetadataOnlyInChallenge", func() {
		srv := start(scripted.MetadataOnlyInChallenge)
		named := challenge(srv, "resource_metadata")
		Expect(named).To(Equal(srv.Metadata))
		Expect(named).NotTo(ContainSubstring(".well-known"))
		Expect(get(named)).To(Equal(http.StatusOK))
		u, _ := url.Parse(srv.Endpoint)
		Expect(get(u.Scheme + "://" + u.Host + "/.well-known/oauth-protected-resource/mcp")).To(Equal(http.StatusNotFound))
		Expect(log.Requests()[1].URL.String()).To(Equal(named), "the log keeps the URL the client asked for")
	})

	It("names no resource_metadata with ChallengeWithoutMetadata, and a scope beyond scopes_supported with ChallengeScope", func() {
		Expect(challenge(start(scripted.ChallengeWithoutMetadata), "resource_metadata")).To(BeEmpty())
		Expect(challenge(start(scripted.ChallengeScope), "scope")).To(Equal("mcp:tools " + scripted.ExtraScope))
	})

	It("offers a tool with arguments that are a JSON object", func() {
		srv := start(scripted.Compliant)
		Expect(srv.Tool).NotTo(BeEmpty())
		var args map[string]any
		Expect(json.Unmarshal([]byte(srv.Args), &args)).To(Succeed())
	})

	It("grants only the scope asked for with StepUp, so that a tools/call then needs more", func() {
		srv := start(scripted.StepUp)
		Expect(challenge(srv, "scope")).To(Equal("mcp:tools"))
		c := &oauthclient.CodeFlow{HTTP: &http.Client{}, Approve: approve, RedirectURI: "http://127.0.0.1:9/callback", Scope: "mcp:tools"}
		tok, err := c.Obtain(context.Background(), srv.Issuer, srv.Resource)
		Expect(err).NotTo(HaveOccurred())
		Expect(tok["scope"]).To(Equal("mcp:tools"))
		Expect(srv.Issued(log)).To(ConsistOf(tok["access_token"]))
		mc := mcpclient.New(srv.Endpoint, nil)
		r, err := mc.Call(context.Background(), "Bearer "+tok["access_token"].(string), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{}})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Status).To(Equal(http.StatusForbidden))
	})

	It("marks its results complete when it speaks only 2026-07-28, as that revision's results must be", func() {
		srv := start(scripted.Modern)
		c := &oauthclient.CodeFlow{HTTP: &http.Client{}, Approve: approve, RedirectURI: "http://127.0.0.1:9/callback"}
		tok, err := c.Obtain(context.Background(), srv.Issuer, srv.Resource)
		Expect(err).NotTo(HaveOccurred())
		for _, method := range []string{"server/discover", "tools/list"} {
			r, err := mcpclient.New(srv.Endpoint, nil).Call(context.Background(), "Bearer "+tok["access_token"].(string), method, map[string]any{})
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Status).To(Equal(http.StatusOK), method)
			Expect(string(r.Message.Result)).To(ContainSubstring(`"resultType":"complete"`), method)
			if method == "tools/list" {
				Expect(string(r.Message.Result)).To(And(ContainSubstring(`"ttlMs":0`), ContainSubstring(`"cacheScope":"private"`)), "a list result is cacheable (changelog)")
			}
		}
	})

	It("names in its 403 only the scope the token lacks with StepUpMissingOnly", func() {
		srv := start(scripted.StepUpMissingOnly)
		Expect(challenge(srv, "scope")).To(Equal("mcp:tools"))
		c := &oauthclient.CodeFlow{HTTP: &http.Client{}, Approve: approve, RedirectURI: "http://127.0.0.1:9/callback", Scope: "mcp:tools"}
		tok, err := c.Obtain(context.Background(), srv.Issuer, srv.Resource)
		Expect(err).NotTo(HaveOccurred())
		Expect(tok["scope"]).To(Equal("mcp:tools"))
		r, err := mcpclient.New(srv.Endpoint, nil).Call(context.Background(), "Bearer "+tok["access_token"].(string), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{}})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Status).To(Equal(http.StatusForbidden))
		Expect(wire.ChallengeParam(r.Header.Values("WWW-Authenticate"), "Bearer", "error")).To(Equal("insufficient_scope"))
		Expect(wire.ChallengeParam(r.Header.Values("WWW-Authenticate"), "Bearer", "scope")).To(Equal("mcp:write"))
	})

	It("sends another issuer's iss with IssWrong", func() {
		srv := start(scripted.IssWrong)
		var loc string
		c := recordingFlow(&loc)
		// The harness's own client refuses the response (RFC 9207 2.4), as
		// a compliant client must, after the redirect carried the wrong iss.
		_, err := c.Obtain(context.Background(), srv.Issuer, srv.Resource)
		Expect(err).To(MatchError(ContainSubstring("RFC 9207")))
		u, err := url.Parse(loc)
		Expect(err).NotTo(HaveOccurred())
		Expect(u.Query().Get("iss")).NotTo(BeEmpty())
		Expect(u.Query().Get("iss")).NotTo(Equal(srv.Issuer))
	})

	It("names another resource in its protected resource metadata with ResourceMismatch", func() {
		srv := start(scripted.ResourceMismatch)
		r, err := oauthclient.New("", oauthclient.Endpoints{}, nil).Get(context.Background(), challenge(srv, "resource_metadata"))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.JSON["resource"]).NotTo(BeEmpty())
		Expect(r.JSON["resource"]).NotTo(Equal(srv.Endpoint))
		Expect(r.JSON["authorization_servers"]).To(ConsistOf(srv.Issuer), "the rest of the document as it was")
	})

	It("adds a member no specification defines to the authorization and token responses with ExtraMembers", func() {
		srv := start(scripted.ExtraMembers)
		var loc string
		c := recordingFlow(&loc)
		tok, err := c.Obtain(context.Background(), srv.Issuer, srv.Resource)
		Expect(err).NotTo(HaveOccurred(), "the harness's own client ignores them")
		Expect(tok).To(HaveKeyWithValue(scripted.ExtraMember, "ignored"))
		Expect(tok["access_token"]).NotTo(BeEmpty())
		u, err := url.Parse(loc)
		Expect(err).NotTo(HaveOccurred())
		Expect(u.Query().Get(scripted.ExtraMember)).To(Equal("ignored"))
	})

	It("issues no refresh token to an authorization without offline_access with NoRefreshToken", func() {
		srv := start(scripted.NoRefreshToken)
		c := &oauthclient.CodeFlow{HTTP: &http.Client{}, Approve: approve, RedirectURI: "http://127.0.0.1:9/callback", Scope: "mcp:tools"}
		tok, err := c.Obtain(context.Background(), srv.Issuer, srv.Resource)
		Expect(err).NotTo(HaveOccurred())
		Expect(tok["access_token"]).NotTo(BeEmpty())
		Expect(tok).NotTo(HaveKey("refresh_token"))
	})

	It("sends the issuer with a trailing slash as iss with IssSlashed", func() {
		srv := start(scripted.IssSlashed)
		var loc string
		c := recordingFlow(&loc)
		_, err := c.Obtain(context.Background(), srv.Issuer, srv.Resource)
		Expect(err).To(MatchError(ContainSubstring("RFC 9207")), "compared as it is, it is another issuer")
		u, err := url.Parse(loc)
		Expect(err).NotTo(HaveOccurred())
		Expect(u.Query().Get("iss")).To(Equal(srv.Issuer + "/"))
	})
})

var _ = Describe("the source pack's scripted server", func() {
	var log *scripted.Log
	BeforeEach(func() { log = &scripted.Log{} })

	// signIn registers and runs the device grant, returning the token
	// response of each poll until one is not authorization_pending.
	signIn := func(srv *scripted.Server) *oauthclient.Reply {
		oc := oauthclient.New(srv.Issuer, oauthclient.Endpoints{Register: "/oauth/register", DeviceAuthorization: "/oauth/device_authorization", Token: "/oauth/token"}, nil)
		reg, err := oc.Register(context.Background(), map[string]any{"redirect_uris": []string{"http://127.0.0.1/cb"}})
		Expect(err).NotTo(HaveOccurred())
		id, _ := reg.String("client_id")
		d, err := oc.DeviceAuthorize(context.Background(), id, nil)
		Expect(err).NotTo(HaveOccurred())
		code, _ := d.String("device_code")
		Expect(d.JSON["interval"]).To(BeEquivalentTo(1))
		t, err := oc.Token(context.Background(), url.Values{"grant_type": {"device_code"}, "device_code": {code}, "client_id": {id}})
		Expect(err).NotTo(HaveOccurred())
		return t
	}

	It("approves each user code as it is issued, and revokes what it issued on request", func() {
		srv, err := scripted.StartSource("first", scripted.Compliant, log)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
		Expect(challenge(srv, "resource_metadata")).To(Equal(srv.Metadata))
		t := signIn(srv)
		tok, _ := t.String("access_token")
		Expect(tok).NotTo(BeEmpty())
		Expect(srv.Issued(log)).To(ConsistOf(tok))
		var last *mcpclient.Reply
		call := func() int {
			r, err := mcpclient.New(srv.Endpoint, nil).Call(context.Background(), "Bearer "+tok, "tools/call", map[string]any{"name": srv.Tool, "arguments": map[string]any{"path": "/overlay/scratch.txt", "content": "x"}})
			Expect(err).NotTo(HaveOccurred())
			last = r
			return r.Status
		}
		Expect(call()).To(Equal(http.StatusOK))
		Expect(last.Exchanges[len(last.Exchanges)-1].RequestHeader["Mcp-Protocol-Version"]).To(Equal([]string{"2026-07-28"}))
		Expect(string(last.Message.Result)).To(ContainSubstring(`"resultType":"complete"`), "a 2026-07-28 result says it is complete (Basic, ResultType)")
		Expect(srv.Revoke()).To(BeTrue())
		Expect(call()).To(Equal(http.StatusUnauthorized))
	})

	It("refuses the first device code with invalid_grant with DeviceCodeRejected", func() {
		srv, err := scripted.StartSource("first", scripted.DeviceCodeRejected, log)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
		refused, _ := signIn(srv).String("error")
		Expect(refused).To(Equal("invalid_grant"))
		tok, _ := signIn(srv).String("access_token")
		Expect(tok).NotTo(BeEmpty())
	})
})

var _ = Describe("the scripted servers' ports", func() {
	It("are never handed out twice in a process, so no scenario's server looks like an earlier one", func() {
		seen := map[string]bool{}
		for range 20 {
			srv, err := scripted.StartAuthz("first", scripted.Compliant, &scripted.Log{}, scripted.AuthzOptions{})
			Expect(err).NotTo(HaveOccurred())
			for _, o := range srv.Origins {
				Expect(seen).NotTo(HaveKey(o))
				seen[o] = true
			}
			srv.Close()
		}
	})

	It("moves a server to another authorization server, which its metadata then names", func() {
		log := &scripted.Log{}
		srv, err := scripted.StartAuthz("first", scripted.Compliant, log, scripted.AuthzOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
		before := srv.Issuer
		Expect(srv.MoveAuthorization()).To(Succeed())
		Expect(srv.Issuer).NotTo(Equal(before))
		r, err := oauthclient.New("", oauthclient.Endpoints{}, nil).Get(context.Background(), srv.Metadata)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.JSON["authorization_servers"]).To(ConsistOf(srv.Issuer))
	})

	It("takes no token of the first authorization server once moved, a refreshed one included", func() {
		log := &scripted.Log{}
		srv, err := scripted.StartAuthz("first", scripted.Compliant, log, scripted.AuthzOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
		first := srv.Issuer
		c := &oauthclient.CodeFlow{HTTP: &http.Client{}, Approve: approve, RedirectURI: "http://127.0.0.1:9/callback"}
		tok, err := c.Obtain(context.Background(), first, srv.Resource)
		Expect(err).NotTo(HaveOccurred())
		call := func(token string) int {
			r, err := mcpclient.New(srv.Endpoint, nil).Call(context.Background(), "Bearer "+token, "tools/list", map[string]any{})
			Expect(err).NotTo(HaveOccurred())
			return r.Status
		}
		Expect(call(tok["access_token"].(string))).To(Equal(http.StatusOK))
		Expect(srv.MoveAuthorization()).To(Succeed())
		srv.Revoke()
		resp, err := http.PostForm(first+"/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}, "client_id": {c.ClientID}, "resource": {srv.Resource}})
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		var refreshed struct {
			AccessToken string `json:"access_token"`
		}
		Expect(json.NewDecoder(resp.Body).Decode(&refreshed)).To(Succeed())
		access := refreshed.AccessToken
		Expect(access).NotTo(BeEmpty(), "the first authorization server still refreshes")
		Expect(call(access)).To(Equal(http.StatusUnauthorized))
	})
})
