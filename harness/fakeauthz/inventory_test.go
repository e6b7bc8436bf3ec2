package fakeauthz_test

import (
	"net/http"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
)

// Each variant for a requirement drafted from the sentence inventory is shown
// doing what its comment says, beside the default fake doing what the
// sentence asks: the scenarios still to be written will fail on the one and
// pass on the other.
var _ = Describe("the variants for the drafted requirements", func() {
	full := fakeauthz.ScopeTools + " " + fakeauthz.ScopeWrite

	challengeOf := func(h *fakeauthz.Host, authorization string) (int, string) {
		resp := mcp(h, authorization, "", "tools/list")
		return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
	}

	It("ChallengeRepeatsAttribute names scope twice (CHAL-4)", func() {
		_, c := challengeOf(start(), "")
		Expect(strings.Count(c, "scope=")).To(Equal(1))
		_, c = challengeOf(start(fakeauthz.ChallengeRepeatsAttribute), "")
		Expect(strings.Count(c, "scope=")).To(Equal(2))
	})

	It("InvalidRequestUnauthorized answers a malformed token 401 with invalid_request (CHAL-5)", func() {
		status, c := challengeOf(start(fakeauthz.MalformedBadRequest), "Bearer a b")
		Expect(status).To(Equal(http.StatusBadRequest))
		Expect(c).To(ContainSubstring(`error="invalid_request"`))
		status, c = challengeOf(start(fakeauthz.InvalidRequestUnauthorized), "Bearer a b")
		Expect(status).To(Equal(http.StatusUnauthorized))
		Expect(c).To(ContainSubstring(`error="invalid_request"`))
	})

	It("ScopeChallengeIncremental challenges for one missing scope at a time (SCOPE-4)", func() {
		h := start()
		limited := h.Mint(h.Endpoint(), fakeauthz.ScopeTools, false)
		resp := mcp(h, "Bearer "+limited, session(h, limited), "tools/call")
		Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
		Expect(resp.Header.Get("WWW-Authenticate")).To(ContainSubstring(`scope="` + full + `"`))
		stepped := h.Mint(h.Endpoint(), full, false)
		Expect(mcp(h, "Bearer "+stepped, session(h, stepped), "tools/call").StatusCode).To(Equal(http.StatusOK))

		h = start(fakeauthz.ScopeChallengeIncremental)
		limited = h.Mint(h.Endpoint(), fakeauthz.ScopeTools, false)
		resp = mcp(h, "Bearer "+limited, session(h, limited), "tools/call")
		Expect(resp.Header.Get("WWW-Authenticate")).To(ContainSubstring(`scope="` + fakeauthz.ScopeWrite + `"`))
		stepped = h.Mint(h.Endpoint(), full, false)
		resp = mcp(h, "Bearer "+stepped, session(h, stepped), "tools/call")
		Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
		Expect(resp.Header.Get("WWW-Authenticate")).To(ContainSubstring(`scope="` + fakeauthz.ScopeAdmin + `"`))
	})

	It("SessionIsCredential serves a session without a token (HANDLE-1)", func() {
		h := start()
		t := h.Mint(h.Endpoint(), full, false)
		Expect(mcp(h, "", session(h, t), "tools/list").StatusCode).To(Equal(http.StatusUnauthorized))
		h = start(fakeauthz.SessionIsCredential)
		t = h.Mint(h.Endpoint(), full, false)
		Expect(mcp(h, "", session(h, t), "tools/list").StatusCode).To(Equal(http.StatusOK))
	})

	It("SessionUnbound serves one user's session to another user's token (HANDLE-2)", func() {
		h := start()
		alice, bob := h.MintFor("", "alice", h.Endpoint(), full), h.MintFor("", "bob", h.Endpoint(), full)
		s := session(h, alice)
		Expect(mcp(h, "Bearer "+alice, s, "tools/list").StatusCode).To(Equal(http.StatusOK))
		Expect(mcp(h, "Bearer "+bob, s, "tools/list").StatusCode).To(Equal(http.StatusBadRequest))
		h = start(fakeauthz.SessionUnbound)
		alice, bob = h.MintFor("", "alice", h.Endpoint(), full), h.MintFor("", "bob", h.Endpoint(), full)
		Expect(mcp(h, "Bearer "+bob, session(h, alice), "tools/list").StatusCode).To(Equal(http.StatusOK))
	})

	It("changes the protected resource metadata as PRM-6, PRM-7 and PRM-8's variants say", func() {
		m := prMetadata(start())
		Expect(m).To(HaveKey("scopes_supported"))
		Expect(m).NotTo(HaveKey("jwks_uri"))
		Expect(m["bearer_methods_supported"]).NotTo(BeEmpty())
		Expect(prMetadata(start(fakeauthz.MetadataEmptyArray))["bearer_methods_supported"]).To(BeEmpty())
		Expect(prMetadata(start(fakeauthz.MetadataPlainJWKS))["jwks_uri"]).To(HavePrefix("http://rs.conform.invalid/"))
		Expect(prMetadata(start(fakeauthz.MetadataWithoutScopes))).NotTo(HaveKey("scopes_supported"))
	})

	It("ErrorTextOutsideCharset puts a double quote and a non-ASCII letter in error descriptions (ERRSYN-1)", func() {
		_, c := challengeOf(start(), "Bearer unknown")
		Expect(c).NotTo(ContainSubstring("error_description"))
		h := start(fakeauthz.ErrorTextOutsideCharset)
		_, c = challengeOf(h, "Bearer unknown")
		Expect(c).To(ContainSubstring(`error_description="the token \"given\" is unknown: é"`))
		_, body := refresh(h, client(h), "never-issued", "-")
		Expect(body["error_description"]).To(ContainSubstring(`"é"`))
	})

	It("changes the authorization server metadata as ASM-4 to ASM-8's variants say", func() {
		m, ct := asMetadata(start())
		Expect(ct).To(HavePrefix("application/json"))
		Expect(m["authorization_endpoint"]).NotTo(ContainSubstring("#"))
		Expect(m).To(HaveKey("scopes_supported"))
		Expect(m).NotTo(HaveKey("acr_values_supported"))
		Expect(m).NotTo(HaveKey("token_endpoint_auth_signing_alg_values_supported"))
		m, _ = asMetadata(start(fakeauthz.EndpointWithFragment))
		Expect(m["authorization_endpoint"]).To(HaveSuffix("#conform"))
		_, ct = asMetadata(start(fakeauthz.ASMetadataTextPlain))
		Expect(ct).To(Equal("text/plain"))
		m, _ = asMetadata(start(fakeauthz.ASMetadataEmptyArray))
		Expect(m["acr_values_supported"]).To(BeEmpty())
		m, _ = asMetadata(start(fakeauthz.ASMetadataWithoutScopes))
		Expect(m).NotTo(HaveKey("scopes_supported"))
		m, _ = asMetadata(start(fakeauthz.SigningAlgNone))
		Expect(m["token_endpoint_auth_signing_alg_values_supported"]).To(ConsistOf("none"))
	})

	It("AuthorizationGETRefused answers GET 405 and takes the request by POST (AUTHEP-1)", func() {
		h := start(fakeauthz.AuthorizationGETRefused)
		id := client(h)
		status, _, header := authorize(h, authRequest(h, id, nil))
		Expect(status).To(Equal(http.StatusMethodNotAllowed))
		Expect(header.Get("Allow")).To(Equal(http.MethodPost))
		req, _ := http.NewRequest(http.MethodPost, h.Issuer()+"/authorize", strings.NewReader(authRequest(h, id, nil).Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, _ := do(req)
		Expect(resp.StatusCode).To(Equal(http.StatusFound))
	})

	It("UnknownParamRefused refuses an unknown authorization parameter (AUTHEP-2)", func() {
		extra := func(q url.Values) { q.Set("conform_unknown", "1") }
		h := start()
		_, back, _ := authorize(h, authRequest(h, client(h), extra))
		Expect(back.Get("code")).NotTo(BeEmpty())
		h = start(fakeauthz.UnknownParamRefused)
		_, back, _ = authorize(h, authRequest(h, client(h), extra))
		Expect(back.Get("error")).To(Equal("invalid_request"))
	})

	It("ScopeOmittedWrongError refuses a request without scope with invalid_request (AUTHREQ-1)", func() {
		noScope := func(q url.Values) { q.Del("scope") }
		h := start()
		_, back, _ := authorize(h, authRequest(h, client(h), noScope))
		Expect(back.Get("code")).NotTo(BeEmpty())
		h = start(fakeauthz.ScopeOmittedWrongError)
		_, back, _ = authorize(h, authRequest(h, client(h), noScope))
		Expect(back.Get("error")).To(Equal("invalid_request"))
	})

	It("StateRepeated sends state twice (PARAM-1)", func() {
		h := start()
		_, back, _ := authorize(h, authRequest(h, client(h), nil))
		Expect(back["state"]).To(HaveLen(1))
		h = start(fakeauthz.StateRepeated)
		_, back, _ = authorize(h, authRequest(h, client(h), nil))
		Expect(back["state"]).To(HaveLen(2))
	})

	It("RedirectQueryDropped drops a registered redirect URI's query (REDIR-4)", func() {
		withQuery := redirectURI + "?conform=1"
		run := func(h *fakeauthz.Host) url.Values {
			_, reg := register(h, map[string]any{"redirect_uris": []string{withQuery}})
			_, back, _ := authorize(h, authRequest(h, reg["client_id"].(string), func(q url.Values) { q.Set("redirect_uri", withQuery) }))
			return back
		}
		Expect(run(start()).Get("conform")).To(Equal("1"))
		Expect(run(start(fakeauthz.RedirectQueryDropped))).NotTo(HaveKey("conform"))
	})

	Describe("a plain http redirect URI on a host that is not loopback (TLS-3, issue 21 item h)", func() {
		plain := "http://client.conform.invalid/cb"
		run := func(h *fakeauthz.Host) (int, int, url.Values) {
			status, reg := register(h, map[string]any{"redirect_uris": []string{redirectURI, plain}})
			if status != http.StatusCreated {
				return status, 0, nil
			}
			code, back, _ := authorize(h, authRequest(h, reg["client_id"].(string), func(q url.Values) { q.Set("redirect_uri", plain) }))
			return status, code, back
		}
		It("is refused at registration by default", func() {
			status, _, _ := run(start())
			Expect(status).To(Equal(http.StatusBadRequest))
		})
		It("is no plain redirect URI when its host is localhost, which security.3 admits beside https", func() {
			h := start()
			local := "http://localhost:8765/cb"
			status, reg := register(h, map[string]any{"redirect_uris": []string{local}})
			Expect(status).To(Equal(http.StatusCreated))
			code, back, _ := authorize(h, authRequest(h, reg["client_id"].(string), func(q url.Values) { q.Set("redirect_uri", local) }))
			Expect(code).To(Equal(http.StatusFound))
			Expect(back.Get("code")).NotTo(BeEmpty())
		})
		It("gets a code under PlainRedirectHonoured", func() {
			_, status, back := run(start(fakeauthz.PlainRedirectHonoured))
			Expect(status).To(Equal(http.StatusFound))
			Expect(back.Get("code")).NotTo(BeEmpty())
		})
		It("is registered but never redirected to under PlainRedirectRegisteredNotUsed", func() {
			reg, status, _ := run(start(fakeauthz.PlainRedirectRegisteredNotUsed))
			Expect(reg).To(Equal(http.StatusCreated))
			Expect(status).To(Equal(http.StatusBadRequest))
		})
	})

	It("FramingAllowed answers with a page that forbids no framing, ConsentPage with one that does (FRAME-1)", func() {
		h := start(fakeauthz.ConsentPage)
		_, _, header := authorize(h, authRequest(h, client(h), nil))
		Expect(header.Get("Content-Security-Policy")).To(ContainSubstring("frame-ancestors"))
		h = start(fakeauthz.FramingAllowed)
		status, _, header := authorize(h, authRequest(h, client(h), nil))
		Expect(status).To(Equal(http.StatusOK))
		Expect(header.Get("Content-Security-Policy")).To(BeEmpty())
	})

	It("ConfidentialPKCEOptional issues and redeems a confidential client's code without code_challenge (PKCE-6)", func() {
		noChallenge := func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") }
		h := start(fakeauthz.ConfidentialRegistration)
		_, reg := register(h, map[string]any{"redirect_uris": []string{redirectURI}})
		_, back, _ := authorize(h, authRequest(h, reg["client_id"].(string), noChallenge))
		Expect(back.Get("error")).To(Equal("invalid_request"))
		h = start(fakeauthz.ConfidentialPKCEOptional)
		_, reg = register(h, map[string]any{"redirect_uris": []string{redirectURI}})
		id, secret := reg["client_id"].(string), reg["client_secret"].(string)
		_, back, _ = authorize(h, authRequest(h, id, noChallenge))
		Expect(back.Get("code")).NotTo(BeEmpty())
		status, body, _ := token(h, url.Values{"grant_type": {"authorization_code"}, "code": {back.Get("code")}, "redirect_uri": {redirectURI}}, id, secret)
		Expect(status).To(Equal(http.StatusOK), body)
		// A public client is still held to PKCE.
		_, back, _ = authorize(h, authRequest(h, fakeauthz.SecondID, noChallenge))
		Expect(back.Get("error")).To(Equal("invalid_request"))
	})

	It("StateEntropyRequired refuses a state shorter than 8 characters with invalid_state", func() {
		h := start(fakeauthz.StateEntropyRequired)
		_, back, _ := authorize(h, authRequest(h, client(h), func(q url.Values) { q.Set("state", "conform") }))
		Expect(back.Get("error")).To(Equal("invalid_state"))
		_, back, _ = authorize(h, authRequest(h, client(h), func(q url.Values) { q.Set("state", "conform-1") }))
		Expect(back.Get("code")).NotTo(BeEmpty())
	})

	It("ChallengeEnforcedAtToken issues a confidential client's code without code_challenge and refuses to redeem it (PKCE-6)", func() {
		noChallenge := func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") }
		h := start(fakeauthz.ChallengeEnforcedAtToken)
		_, reg := register(h, map[string]any{"redirect_uris": []string{redirectURI}})
		id, secret := reg["client_id"].(string), reg["client_secret"].(string)
		_, back, _ := authorize(h, authRequest(h, id, noChallenge))
		Expect(back.Get("code")).NotTo(BeEmpty())
		status, body, _ := token(h, url.Values{"grant_type": {"authorization_code"}, "code": {back.Get("code")}, "redirect_uri": {redirectURI}}, id, secret)
		Expect(status).To(Equal(http.StatusBadRequest), body)
		Expect(body).To(HaveKeyWithValue("error", "invalid_grant"))
	})

	It("ChallengeInCode puts the code_challenge in the code (PKCE-7)", func() {
		h := start()
		Expect(code(h, client(h))).NotTo(ContainSubstring(challenge()))
		h = start(fakeauthz.ChallengeInCode)
		c := code(h, client(h))
		Expect(c).To(ContainSubstring(challenge()))
		status, _ := redeem(h, fakeauthz.SecondID, code(h, fakeauthz.SecondID))
		Expect(status).To(Equal(http.StatusOK))
	})

	It("ChallengeMissingWrongError refuses a request without code_challenge with access_denied (PKCE-8)", func() {
		noChallenge := func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") }
		h := start(fakeauthz.ChallengeMissingWrongError)
		_, back, _ := authorize(h, authRequest(h, client(h), noChallenge))
		Expect(back.Get("error")).To(Equal("access_denied"))
	})

	It("ResourceCaseSensitive refuses the endpoint written with an uppercase scheme and host, which ResourceIndicators takes (CANON-1)", func() {
		upper := func(h *fakeauthz.Host) func(url.Values) {
			return func(q url.Values) {
				q.Set("resource", strings.ToUpper(strings.TrimSuffix(h.Endpoint(), "/mcp"))+"/mcp")
			}
		}
		h := start(fakeauthz.ResourceIndicators)
		id := client(h)
		_, back, _ := authorize(h, authRequest(h, id, upper(h)))
		Expect(back.Get("code")).NotTo(BeEmpty())
		status, body := redeem(h, id, back.Get("code"))
		Expect(status).To(Equal(http.StatusOK))
		Expect(mcp(h, "Bearer "+body["access_token"].(string), "", "initialize").StatusCode).To(Equal(http.StatusOK))
		h = start(fakeauthz.ResourceCaseSensitive)
		_, back, _ = authorize(h, authRequest(h, client(h), upper(h)))
		Expect(back.Get("error")).To(Equal("invalid_target"))
	})

	It("TokenUnknownParamRefused refuses an unknown token parameter (TOKEP-1)", func() {
		h := start()
		id := client(h)
		status, _ := redeem(h, id, code(h, id), "conform_unknown", "1")
		Expect(status).To(Equal(http.StatusOK))
		h = start(fakeauthz.TokenUnknownParamRefused)
		id = client(h)
		status, body := redeem(h, id, code(h, id), "conform_unknown", "1")
		Expect(status).To(Equal(http.StatusBadRequest))
		Expect(body["error"]).To(Equal("invalid_request"))
	})

	It("EmptyScopeRefused refuses a refresh with scope= (TOKEP-2)", func() {
		h := start()
		id := client(h)
		status, body := refresh(h, id, tokens(h, id)["refresh_token"].(string), "")
		Expect(status).To(Equal(http.StatusOK))
		Expect(body["scope"]).To(Equal(full))
		h = start(fakeauthz.EmptyScopeRefused)
		id = client(h)
		status, body = refresh(h, id, tokens(h, id)["refresh_token"].(string), "")
		Expect(status).To(Equal(http.StatusBadRequest))
		Expect(body["error"]).To(Equal("invalid_scope"))
	})

	It("AccessTokenMissing answers a redemption without access_token (TOKRESP-2)", func() {
		h := start(fakeauthz.AccessTokenMissing)
		Expect(tokens(h, client(h))).NotTo(HaveKey("access_token"))
	})

	It("ScopeNarrowedSilently grants less than asked and says so only in the token (TOKRESP-3)", func() {
		h := start(fakeauthz.ScopeNarrowedSilently)
		resp := tokens(h, client(h))
		Expect(resp).NotTo(HaveKey("scope"))
		Expect(claims(resp["access_token"].(string))["scope"]).To(Equal(fakeauthz.ScopeTools))
	})

	Describe("confidential clients from registration (issue 21 item n; CLIENTAUTH-1 to -3; REG-8, REG-11)", func() {
		var (
			h          *fakeauthz.Host
			id, secret string
			reg        map[string]any
		)
		setUp := func(breaks ...fakeauthz.Break) {
			h = start(breaks...)
			var status int
			status, reg = register(h, map[string]any{"redirect_uris": []string{redirectURI}, "application_type": "native", "token_endpoint_auth_method": "none"})
			Expect(status).To(Equal(http.StatusCreated))
			id, _ = reg["client_id"].(string)
			secret, _ = reg["client_secret"].(string)
		}
		redeemWith := func(basic []string, extra ...string) (int, map[string]any, http.Header) {
			form := url.Values{"grant_type": {"authorization_code"}, "code": {code(h, id)}, "redirect_uri": {redirectURI}, "code_verifier": {verifier}}
			for i := 0; i+1 < len(extra); i += 2 {
				form.Set(extra[i], extra[i+1])
			}
			return token(h, form, basic...)
		}

		It("registers a secret-holding client and takes its secret by HTTP Basic or in the body", func() {
			setUp(fakeauthz.ConfidentialRegistration)
			Expect(reg).To(HaveKeyWithValue("token_endpoint_auth_method", "client_secret_basic"))
			Expect(reg).To(HaveKeyWithValue("client_secret_expires_at", BeNumerically("==", 0)))
			status, _, _ := redeemWith([]string{id, secret})
			Expect(status).To(Equal(http.StatusOK))
			status, _, _ = redeemWith(nil, "client_id", id, "client_secret", secret)
			Expect(status).To(Equal(http.StatusOK))
			status, body, header := redeemWith([]string{id, "wrong"})
			Expect(status).To(Equal(http.StatusUnauthorized))
			Expect(body["error"]).To(Equal("invalid_client"))
			Expect(header.Get("WWW-Authenticate")).To(HavePrefix("Basic"))
			status, body, _ = redeemWith(nil, "client_id", id)
			Expect(status).To(Equal(http.StatusBadRequest))
			Expect(body["error"]).To(Equal("invalid_client"))
		})
		It("SecretPostRefused refuses the secret in the body", func() {
			setUp(fakeauthz.SecretPostRefused)
			status, _, _ := redeemWith(nil, "client_id", id, "client_secret", secret)
			Expect(status).To(Equal(http.StatusBadRequest))
		})
		It("SecretNotChecked redeems without the secret", func() {
			setUp(fakeauthz.SecretNotChecked)
			status, _, _ := redeemWith(nil, "client_id", id)
			Expect(status).To(Equal(http.StatusOK))
		})
		It("BasicFailureNoChallenge answers a wrong Basic secret 400 without a challenge", func() {
			setUp(fakeauthz.BasicFailureNoChallenge)
			status, _, header := redeemWith([]string{id, "wrong"})
			Expect(status).To(Equal(http.StatusBadRequest))
			Expect(header.Get("WWW-Authenticate")).To(BeEmpty())
		})
		It("SecretWithoutExpiry leaves client_secret_expires_at out", func() {
			setUp(fakeauthz.SecretWithoutExpiry)
			Expect(reg).To(HaveKey("client_secret"))
			Expect(reg).NotTo(HaveKey("client_secret_expires_at"))
		})
		It("TwoMethodsRefused refuses HTTP Basic with a client_id in the body (issue 21 item m)", func() {
			setUp(fakeauthz.ConfidentialRegistration, fakeauthz.TwoMethodsRefused)
			status, body, _ := redeemWith([]string{id, secret}, "client_id", id)
			Expect(status).To(Equal(http.StatusBadRequest))
			Expect(body["error_description"]).To(ContainSubstring("multiple client authentication methods"))
			status, _, _ = redeemWith([]string{id, secret})
			Expect(status).To(Equal(http.StatusOK))
		})
	})

	Describe("a code redeemed twice", func() {
		replay := func(h *fakeauthz.Host, v string) (string, bool) {
			id := client(h)
			c := code(h, id)
			status, body := redeem(h, id, c)
			Expect(status).To(Equal(http.StatusOK))
			access := body["access_token"].(string)
			status, _ = redeem(h, id, c, "code_verifier", v)
			Expect(status).To(Equal(http.StatusBadRequest))
			return access, mcp(h, "Bearer "+access, "", "initialize").StatusCode == http.StatusOK
		}
		It("revokes the first tokens by default, keeps them under CodeReplayKeepsTokens (CODE-3)", func() {
			_, kept := replay(start(), verifier)
			Expect(kept).To(BeFalse())
			_, kept = replay(start(fakeauthz.CodeReplayKeepsTokens), verifier)
			Expect(kept).To(BeTrue())
		})
		It("revokes them on a replay with a wrong verifier under InvalidReplayRevokes (CODE-4)", func() {
			_, kept := replay(start(), "wrong-"+verifier)
			Expect(kept).To(BeTrue())
			_, kept = replay(start(fakeauthz.InvalidReplayRevokes), "wrong-"+verifier)
			Expect(kept).To(BeFalse())
		})
	})

	It("revokes the newest refresh token when a rotated one is replayed, unless RotationReplayKeepsGrant (REFRESH-6)", func() {
		run := func(h *fakeauthz.Host) int {
			id := client(h)
			first := tokens(h, id)["refresh_token"].(string)
			_, body := refresh(h, id, first, "-")
			newest := body["refresh_token"].(string)
			status, _ := refresh(h, id, first, "-")
			Expect(status).To(Equal(http.StatusBadRequest))
			status, _ = refresh(h, id, newest, "-")
			return status
		}
		Expect(run(start())).To(Equal(http.StatusBadRequest))
		Expect(run(start(fakeauthz.RotationReplayKeepsGrant))).To(Equal(http.StatusOK))
	})

	It("RefreshAnyToken refreshes with a refresh token it never issued (REFRESH-7)", func() {
		h := start()
		status, _ := refresh(h, client(h), "never-issued", "-")
		Expect(status).To(Equal(http.StatusBadRequest))
		h = start(fakeauthz.RefreshAnyToken)
		status, _ = refresh(h, client(h), "never-issued", "-")
		Expect(status).To(Equal(http.StatusOK))
	})

	It("RefreshNarrowsRefreshToken gives a narrowed refresh's new refresh token the lesser scope (REFRESH-8)", func() {
		run := func(h *fakeauthz.Host) any {
			id := client(h)
			_, body := refresh(h, id, tokens(h, id)["refresh_token"].(string), fakeauthz.ScopeTools)
			_, body = refresh(h, id, body["refresh_token"].(string), "-")
			return body["scope"]
		}
		Expect(run(start())).To(Equal(full))
		Expect(run(start(fakeauthz.RefreshNarrowsRefreshToken))).To(Equal(fakeauthz.ScopeTools))
	})

	It("JWTAccessTokens name their audience, AudienceOmitted's do not (AUD-1)", func() {
		h := start(fakeauthz.JWTAccessTokens)
		Expect(claims(tokens(h, client(h))["access_token"].(string))).To(HaveKeyWithValue("aud", h.Endpoint()))
		h = start(fakeauthz.AudienceOmitted)
		Expect(claims(tokens(h, client(h))["access_token"].(string))).NotTo(HaveKey("aud"))
	})

	It("registers what the registration variants say (REG-6, REG-7, REG-9, REG-10, REG-12)", func() {
		h := start()
		for _, u := range []string{"/callback", "conformapp:/callback"} {
			status, _ := register(h, map[string]any{"redirect_uris": []string{u}})
			Expect(status).To(Equal(http.StatusBadRequest), u)
		}
		status, _ := register(start(fakeauthz.RegistrationRelativeRedirect), map[string]any{"redirect_uris": []string{"/callback"}})
		Expect(status).To(Equal(http.StatusCreated))
		status, _ = register(start(fakeauthz.RegistrationPrivateSchemeNoPeriod), map[string]any{"redirect_uris": []string{"conformapp:/callback"}})
		Expect(status).To(Equal(http.StatusCreated))

		Expect(client(h)).NotTo(Equal(client(h)))
		h = start(fakeauthz.RegistrationSameClientID)
		Expect(client(h)).To(Equal(client(h)))

		_, reg := register(start(), map[string]any{"redirect_uris": []string{redirectURI}, "application_type": "native"})
		Expect(reg).To(HaveKey("redirect_uris"))
		Expect(reg).To(HaveKeyWithValue("application_type", "native"))
		_, reg = register(start(fakeauthz.RegistrationEchoesNothing), map[string]any{"redirect_uris": []string{redirectURI}})
		Expect(reg).To(HaveLen(1))

		unknown := map[string]any{"redirect_uris": []string{redirectURI}, "conform_unknown_field": "x"}
		status, _ = register(start(), unknown)
		Expect(status).To(Equal(http.StatusCreated))
		status, reg = register(start(fakeauthz.RegistrationUnknownFieldRefused), unknown)
		Expect(status).To(Equal(http.StatusBadRequest))
		Expect(reg["error"]).To(Equal("invalid_client_metadata"))
	})

	Describe("revocation (REVOKE-1 to -3)", func() {
		revoke := func(h *fakeauthz.Host, id, t, hint string) {
			form := url.Values{"token": {t}, "client_id": {id}}
			if hint != "" {
				form.Set("token_type_hint", hint)
			}
			req, _ := http.NewRequest(http.MethodPost, h.Issuer()+"/revoke", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, _ := do(req)
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
		}
		// run revokes a fresh grant's refresh token and reports whether the
		// refresh token and the access token still work.
		run := func(h *fakeauthz.Host, hint string) (refreshes, serves bool) {
			id := client(h)
			body := tokens(h, id)
			revoke(h, id, body["refresh_token"].(string), hint)
			status, _ := refresh(h, id, body["refresh_token"].(string), "-")
			return status == http.StatusOK, mcp(h, "Bearer "+body["access_token"].(string), "", "initialize").StatusCode == http.StatusOK
		}
		It("is advertised only under Revocation, which revokes the grant, whatever the hint", func() {
			m, _ := asMetadata(start())
			Expect(m).NotTo(HaveKey("revocation_endpoint"))
			h := start(fakeauthz.Revocation)
			m, _ = asMetadata(h)
			Expect(m).To(HaveKeyWithValue("revocation_endpoint", h.Issuer()+"/revoke"))
			refreshes, serves := run(h, "access_token")
			Expect(refreshes).To(BeFalse())
			Expect(serves).To(BeFalse())
		})
		It("RevocationIgnored revokes nothing", func() {
			refreshes, _ := run(start(fakeauthz.RevocationIgnored), "refresh_token")
			Expect(refreshes).To(BeTrue())
		})
		It("RevocationHintStrict misses a refresh token under the access_token hint", func() {
			refreshes, _ := run(start(fakeauthz.RevocationHintStrict), "access_token")
			Expect(refreshes).To(BeTrue())
		})
		It("RevocationKeepsAccess leaves the grant's access token working", func() {
			refreshes, serves := run(start(fakeauthz.RevocationKeepsAccess), "refresh_token")
			Expect(refreshes).To(BeFalse())
			Expect(serves).To(BeTrue())
		})
	})

	Describe("introspection (INTROSPECT-1 to -4; issue 21 items c and d)", func() {
		introspect := func(h *fakeauthz.Host, t, hint string, authenticated bool) (int, map[string]any) {
			form := url.Values{"token": {t}}
			if hint != "" {
				form.Set("token_type_hint", hint)
			}
			req, _ := http.NewRequest(http.MethodPost, h.Issuer()+"/introspect", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if authenticated {
				req.SetBasicAuth(fakeauthz.ConfidentialID, fakeauthz.ConfidentialSecret)
			}
			resp, body := do(req)
			return resp.StatusCode, jsonOf(body)
		}
		It("answers only an authenticated caller, with aud for a live token and active false alone otherwise", func() {
			h := start(fakeauthz.Introspection)
			t := h.Target()
			status, _ := introspect(h, t.Credential, "", false)
			Expect(status).To(Equal(http.StatusUnauthorized))
			_, body := introspect(h, t.Credential, "refresh_token", true)
			Expect(body).To(HaveKeyWithValue("active", true))
			Expect(body).To(HaveKeyWithValue("aud", h.Endpoint()))
			_, body = introspect(h, t.Tokens.OtherResource, "", true)
			Expect(body).To(HaveKeyWithValue("aud", "https://other.example/mcp"))
			_, body = introspect(h, t.Tokens.Expired, "", true)
			Expect(body).To(Equal(map[string]any{"active": false}))
			_, body = introspect(h, "never-issued", "", true)
			Expect(body).To(Equal(map[string]any{"active": false}))
		})
		It("ExpiredTokenLive serves the profile's expired token and says it is active (item c)", func() {
			h := start(fakeauthz.ExpiredTokenLive, fakeauthz.Introspection)
			t := h.Target()
			Expect(mcp(h, "Bearer "+t.Tokens.Expired, "", "initialize").StatusCode).To(Equal(http.StatusOK))
			_, body := introspect(h, t.Tokens.Expired, "", true)
			Expect(body).To(HaveKeyWithValue("active", true))
		})
		It("IntrospectionOpen answers a caller without credentials", func() {
			h := start(fakeauthz.IntrospectionOpen)
			status, body := introspect(h, h.Target().Credential, "", false)
			Expect(status).To(Equal(http.StatusOK))
			Expect(body).To(HaveKeyWithValue("active", true))
		})
		It("IntrospectionHintStrict misses an access token under the refresh_token hint", func() {
			h := start(fakeauthz.IntrospectionHintStrict)
			_, body := introspect(h, h.Target().Credential, "refresh_token", true)
			Expect(body).To(HaveKeyWithValue("active", false))
		})
		It("IntrospectionActiveMissing leaves active out", func() {
			h := start(fakeauthz.IntrospectionActiveMissing)
			_, body := introspect(h, h.Target().Credential, "", true)
			Expect(body).NotTo(HaveKey("active"))
			Expect(body).To(HaveKey("aud"))
		})
		It("IntrospectionInactiveDetails says why a token is inactive", func() {
			_, body := introspect(start(fakeauthz.IntrospectionInactiveDetails), "never-issued", "", true)
			Expect(body).To(HaveKey("error_description"))
		})
	})
})
