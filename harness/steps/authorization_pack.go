package steps

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/harness/wire"
)

// authzState is one scenario's state in the mcp-authorization pack: the
// core state, and what the scenario found of the protected resource and its
// authorization server. authorizationSteps makes one per scenario.
type authzState struct {
	*State
	// authz is the scenario's progress in the pack.
	authz authzProgress
}

// authzProgress is what a scenario of the pack found so far: the protected
// resource metadata, and its progress with the authorization server.
type authzProgress struct {
	// meta is the last metadata document fetched, nil before any.
	meta *document
	// as is the scenario's progress with the authorization server.
	as asFlow
	// stepUp is what the scenario's step-up authorization asked for.
	stepUp stepUp
}

// maxDocument bounds a metadata document read by the harness.
const maxDocument = 1 << 20

// endpoint is the MCP endpoint's URL, the resource the pack is about.
func (st *State) endpoint() string { return st.Target.Endpoint() }

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// protected is the request that needs authorization: the profile's, else
// tools/list, which the pre-flight chose because the server refused it
// anonymously.
func (st *authzState) protected() requestSpec {
	r := st.Target.Profile.MCPAuthorization.ProtectedRequest
	if r.Method == "" {
		return requestSpec{Method: "tools/list"}
	}
	return requestSpec{r.Method, r.Params}
}

// requestSpec is a JSON-RPC request the profile names.
type requestSpec struct {
	Method string
	Params map[string]any
}

// protectedParams are the params to send: the profile's, or what a
// well-behaved client sends with the bare method.
func (st *authzState) protectedParams(r requestSpec) any {
	if r.Params == nil {
		return mcpclient.DefaultParams(r.Method)
	}
	return r.Params
}

func hasBearer(challenges []string) bool { return bearerIn(challenges) != nil }

// redirectURI is the redirect URI of the scenario's client: the profile's,
// unless the scenario registered a client with another.
func (st *authzState) redirectURI() string {
	if u := st.authz.as.redirectURI; u != "" {
		return u
	}
	return st.Target.Profile.MCPAuthorization.RedirectURI
}

// stepTable is a family of steps: each entry's words, and what the step
// does. oneOf builds its pattern, so a line that names no entry matches no
// step.
type stepTable map[string]func(context.Context) error

// bind binds a table as one step: prefix, one entry's words, suffix. hear,
// when set, makes what every entry's step heard the last reply (hearing).
func (t stepTable) bind(sc stepContext, prefix, suffix string, hear func()) {
	sc.Step(oneOf(prefix, t, suffix), func(ctx context.Context, which string) error {
		step := t[which]
		if hear != nil {
			step = hearing(step, hear)
		}
		return step(ctx)
	})
}

// register binds the steps of the mcp-authorization pack
// (spec/mcp-authorization), each family one step over a table: the callers
// and requests of the protected resource and what it answers (discovery.1
// and 2, authorization.1.2, 9.2, 10 and 11.1, transport.1), then the
// authorization server's metadata, registration, code flow and token
// endpoint (discovery.3, authorization.5 and 7.1, security.2, 4 and 6).
func (st *authzState) register(sc stepContext) {
	st.vars["mcp_authorization.invalid_origin"] = st.Target.Profile.MCPAuthorization.InvalidOrigin

	// The callers of the protected resource (authorization.9.2, 11.1; transport.1).
	st.credentials["an expired token"] = st.withExpiredToken
	st.credentials["a token issued for another resource"] = st.withOtherResourceToken
	st.credentials["a token that lacks the scope the scoped request needs"] = func(context.Context) error {
		return st.withToken(st.Target.Tokens.Limited, "limited-token")
	}
	st.credentials["the target's credential, one character changed"] = noContext(st.tamperedCredential)
	st.credentials["the target's credential, or an anonymous caller when the profile has none"] = noContext(st.credentialOrAnonymous)
	st.credentials["a token holding the limited token's scope and the scope the challenge names"] = st.steppedUpToken
	st.credentials["another user's token"] = func(context.Context) error {
		return st.withToken(st.Target.Tokens.OtherUser, target.NeedsOtherUserToken)
	}
	st.credentials["the access token the code was redeemed for"] = noContext(st.withRedeemedToken)

	// What the caller sends the MCP server, and what the server does with it
	// (authorization.1.2, 9.2, 10, 11.1; transport.1).
	stepTable{
		"the request that needs authorization":                                                      st.sendProtected,
		"the request that needs more scope":                                                         st.sendScoped,
		"the request that needs authorization with the target's credential in the URI query string": st.sendWithQueryToken,
		"a request the server answers on its own, without an Origin header":                         func(ctx context.Context) error { return st.probeWithOrigin(ctx, "") },
		"the same request in its session, without the token":                                        st.sendInSessionWithoutToken,
		"the same request in its session, with another user's token":                                st.sendInSessionAsOtherUser,
	}.bind(sc, `^the caller sends `, `$`, nil)
	sc.Step(`^the caller sends the same request with the Origin "([^"]*)"$`, st.probeWithOrigin)
	stepTable{
		"serves the request that needs authorization with the target's credential":                                            st.controlServed,
		"takes that token as valid: it serves the request that needs authorization, or refuses it 403 for insufficient scope": st.limitedServed,
		"refuses the request that needs authorization without a token":                                                        st.refusedWithoutToken,
		"answers neither 401 nor 403":                                                           noContext(st.originControl),
		"serves the request: HTTP 2xx":                                                          noContext(st.served),
		"refuses the request as malformed: 400 or 401, with a Bearer challenge":                 noContext(st.refusedAsMalformed),
		"refuses the request 403, insufficient permissions":                                     noContext(st.refusedForScope),
		"refuses the request that needs authorization, if at all, as MCP authorization does":    st.usesMCPAuthorization,
		"serves the request that needs authorization with the access token the client obtained": st.obtainedServed,
		"serves the request, or challenges for no scope the first challenge left out":           noContext(st.noLaterScope),
		"serves the caller the request that needs authorization":                                st.callerServed,
		"refuses the request that needs authorization with a token it never issued":             st.unknownTokenRefused,
	}.bind(sc, `^the server `, `$`, nil)
	sc.Step(`^the Bearer challenge(?: (names a scope|carries no error)|'s error is "([^"]+)"|'s scope does not name "([^"]+)")$`, st.challengeSays)
	sc.Step(`^the Bearer challenge's error code agrees with the HTTP status$`, st.errorCodeAgrees)

	// The protected resource metadata (discovery.1, discovery.2; RFC 9728).
	stepTable{
		"the way a client finds it":                                                 st.discoverMetadata,
		"the way a client finds it, if any":                                         st.metadataIfAny,
		"through the challenge's resource_metadata":                                 st.fetchChallengedMetadata,
		"at the first well-known URI that serves it, the MCP endpoint's path first": st.tryWellKnown,
	}.bind(sc, `^the protected resource metadata, found `, `$`, st.hearDocument)
	stepTable{
		" is a JSON object served with HTTP 200":                          noContext(st.metadataIsObject),
		"'s authorization_servers holds at least one absolute URL":        noContext(st.metadataNamesServers),
		"'s resource is the MCP endpoint's URL":                           noContext(st.resourceIsEndpoint),
		"'s resource is the identifier its well-known URI was built from": noContext(st.resourceIsBuiltFrom),
		`'s scopes_supported does not name "offline_access"`:              func(context.Context) error { return st.scopesSupportedLacks("offline_access") },
		" holds no empty array":                                           noContext(st.metadataNoEmptyArray),
		"'s resource has no fragment":                                     noContext(st.metadataResourceNoFragment),
		"'s resource and jwks_uri use https unless on a loopback host":    noContext(st.metadataURLs),
		" lists scopes_supported":                                         noContext(st.metadataListsScopes),
	}.bind(sc, `^the metadata`, `$`, nil)

	// The authorization server metadata (discovery.3; RFC 8414).
	stepTable{
		"the way a client finds it":                           st.foundAS,
		"at the well-known URIs in the specification's order": st.discoverAS,
	}.bind(sc, `^the authorization server's metadata, found `, `$`, st.hearMetadata)
	stepTable{
		" names an authorization_endpoint and a token_endpoint":                                                 noContext(st.asNamesEndpoints),
		" names response_types_supported":                                                                       noContext(st.asResponseTypes),
		" names every endpoint with https unless its host is loopback":                                          noContext(st.asHTTPS),
		"'s issuer is the identifier its well-known URI was built from":                                         noContext(st.asIssuerMatches),
		`'s code_challenge_methods_supported includes "S256"`:                                                   func(context.Context) error { return st.asMethodListed("S256") },
		`'s code_challenge_methods_supported does not include "plain"`:                                          func(context.Context) error { return st.asMethodNotListed("plain") },
		"'s client_id_metadata_document_supported is true":                                                      noContext(st.asCIMD),
		" advertises authorization_response_iss_parameter_supported":                                            st.asAdvertisesIss,
		" advertises authorization_response_iss_parameter_supported, if the authorization response carries iss": noContext(st.issAdvertisedWhenSent),
		" is a JSON object served with HTTP 200 as application/json":                                            noContext(st.asServedAsJSON),
		" holds no empty array": noContext(st.asNoEmptyArray),
		" names its issuer without query or fragment, and its authorization and token endpoints without a fragment": noContext(st.asNoFragment),
		" lists scopes_supported": noContext(st.asListsScopes),
		" lists token endpoint signing algorithms for its JWT methods, and never none": noContext(st.asSigningAlgs),
	}.bind(sc, `^the authorization server metadata`, `$`, nil)

	// Registration (authorization.5; RFC 7591).
	stepTable{
		"public client":        st.publicClient,
		"second public client": st.secondClient,
		"confidential client":  st.confidentialClient,

		// Clients of the authorization endpoint's rules (security.3, 6).
		"public client whose redirect_uri carries a query":                                                          st.queryClient,
		"public client, with a plain http redirect_uri on a host that is not loopback when registration takes one,": st.plainRedirectClient,
	}.bind(sc, `^a `, ` registered with the authorization server$`, nil)
	sc.Step(`^a public client registers at the advertised registration_endpoint with (?:the redirect_uri "([^"]+)"|(the profile's redirect_uri(?: and a fragment| on another path| and a metadata field no specification defines)?))$`, st.registers)
	stepTable{
		"is refused":                   noContext(st.registrationRefusedAS),
		"answers 201 with a client_id": noContext(st.registrationAnswered),
		"names a client_id other than the first client's":                      noContext(st.registrationNewClientID),
		"returns the redirect_uris registered":                                 noContext(st.registrationReturnsRedirects),
		"is accepted, with a client_id":                                        noContext(st.registrationAccepted),
		"is allowed without an initial access token":                           noContext(st.registrationOpen),
		"carries client_secret_expires_at, if it issued a client_secret":       noContext(st.registrationExpiresSecret),
		"keeps a native client that asked for no client authentication public": noContext(st.registrationKeptPublic),
	}.bind(sc, `^the registration `, `$`, nil)

	// The authorization endpoint (authorization.7.1, security.4, security.6):
	// the requests the client sends, the controls that show the valid one
	// works, and what the server and its response do.
	stepTable{
		"an authorization request without code_challenge": func(ctx context.Context) error {
			if err := st.needPublicClient("rejects requests without a code_challenge from public clients (OAuth 2.1 4.1.2.1)"); err != nil {
				return err
			}
			return st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.Challenge, r.Method = "", "" })
		},
		"an authorization request the server must refuse: without code_challenge, else with a response_type it does not support": st.sendRefusable,
		// The confidential client's (PKCE-6): its Given made sure it is one.
		"its authorization request without code_challenge": func(ctx context.Context) error {
			return st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.Challenge, r.Method = "", "" })
		},
		`an authorization request with code_challenge_method "plain"`: func(ctx context.Context) error {
			return st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.Method = "plain" })
		},
		"an authorization request whose redirect_uri extends the registered one's path": func(ctx context.Context) error {
			return st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.RedirectURI = extended(r.RedirectURI) })
		},
		"an authorization request with a client_id the server never issued": func(ctx context.Context) error {
			return st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.ClientID = "conform-unknown-client-7f3a9c" })
		},
		"its authorization request with the redirect_uri on another port": func(ctx context.Context) error {
			return st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.RedirectURI = otherPort(r.RedirectURI) })
		},
		"its authorization request with an Origin header":                   st.authorizationWithOrigin,
		"the CORS preflight of its authorization request, from that origin": st.corsPreflight,

		// The authorization endpoint's own rules (OAuth 2.1 1.4.1, 3.1,
		// 4.1.1; security.3; authorization.8.1).
		"its valid authorization request": func(ctx context.Context) error {
			return st.sendAuthorization(ctx, func(*oauthclient.AuthorizationRequest) {})
		},
		"its valid authorization request with a parameter no specification defines": st.withUnknownParam,
		"an authorization request without scope": func(ctx context.Context) error {
			return st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.Scope = "" })
		},
		"an authorization request with scope sent empty": st.withEmptyScope,
		"an authorization request without response_type": st.withoutResponseType,
		`an authorization request with response_type "token"`: func(ctx context.Context) error {
			return st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.ResponseType = "token" })
		},
		"its authorization request with a plain http redirect_uri on a host that is not loopback": st.sendPlainRedirect,
		"its authorization request naming the MCP server with an uppercase scheme and host":       st.withUpperResource,
	}.bind(sc, `^the client sends `, `$`, st.hearAnswer)
	stepTable{
		"authorization request is approved":                                                      hearing(st.approveAuthorization, st.hearAnswer),
		"authorization request obtains a code and a token":                                       st.controlFlow,
		"authorization request, without an Origin header, is answered with a page or a redirect": st.authorizationAnswered,
		"refresh obtains a token":                                                                hearing(func(ctx context.Context) error { return st.refreshControl(ctx, false) }, st.hearToken),
		"refresh, asking for the scope granted, obtains a token":                                 hearing(func(ctx context.Context) error { return st.refreshControl(ctx, true) }, st.hearToken),
	}.bind(sc, `^the client's valid `, `$`, nil)
	stepTable{
		"refuses the authorization request":                                                                 noContext(st.authorizationRefused),
		"refuses the authorization request, or its code when redeemed without code_verifier":                st.confidentialChallengeEnforced,
		`answers with the error response "invalid_request"`:                                                 func(ctx context.Context) error { return st.authorizationErrorIs(ctx, "invalid_request") },
		"does not redirect to the redirect_uri":                                                             noContext(st.noRedirectToUnregistered),
		"answers by redirecting to the redirect_uri with an error":                                          noContext(st.errorRedirect),
		"accepts that redirect_uri, redirecting to it":                                                      noContext(st.acceptsRedirect),
		"does not allow that origin by CORS at its authorization endpoint":                                  noContext(st.noCORS),
		"registers a public client with the profile's redirect_uri at the advertised registration_endpoint": st.registrationControl,
		"advertises a revocation_endpoint":                                                                  noContext(st.advertisesRevocation),
		"advertises an introspection_endpoint":                                                              noContext(st.advertisesIntrospection),

		// The authorization endpoint's own rules.
		"takes the authorization request by GET": noContext(st.takesGET),
		"answers with a code, ignoring the parameter it does not know": func(context.Context) error {
			return st.answersWithCode(`authorization response to the valid request with ` + unknownParam + `=1 added (OAuth 2.1 3.1: "MUST ignore unrecognized request parameters")`)
		},
		"answers with a code, taking the uppercase scheme and host": func(context.Context) error {
			return st.answersWithCode(`authorization response to the valid request naming the resource ` + upperResource(st.endpoint()) + ` (authorization.8.1: "SHOULD accept uppercase scheme and host components")`)
		},
		`answers with a code or the error response "invalid_scope"`:                                        noContext(st.codeOrInvalidScope),
		"answers as it answered the request without scope":                                                 noContext(st.answeredAsWithout),
		`answers a public client with the error response "invalid_request", if it requires code_challenge`: noContext(st.missingChallengeError),
		"refused to register the plain http redirect_uri, or redirects no code to it":                      noContext(st.noCodeToPlain),
		"answers the valid request with a page":                                                            noContext(st.answeredWithPage),
		"forbids framing its page with Content-Security-Policy frame-ancestors":                            noContext(st.framingForbidden),
	}.bind(sc, `^the authorization server `, `$`, nil)
	stepTable{
		" carries iss":                     noContext(st.responseCarriesIss),
		" carries a code":                  noContext(st.responseCarriesCode),
		" carries the state sent, exactly": noContext(st.stateEchoed),
		"'s iss is the metadata's issuer":  noContext(st.issIsIssuer),

		// The authorization endpoint's own rules (OAuth 2.1 2.3, 3.1, 4.1.2).
		" carries each parameter once":                    noContext(st.paramsOnce),
		" does not carry the code_challenge":              noContext(st.challengeHidden),
		" keeps the query of the registered redirect_uri": noContext(st.keepsQuery),
	}.bind(sc, `^the authorization response`, `$`, nil)
	sc.Step(`^the registered redirect_uri is a loopback IP literal$`, st.loopbackRedirect)
	stepTable{
		"Bearer challenge's":       noContext(st.challengeErrorText),
		"token response's":         noContext(st.tokenErrorText),
		"authorization response's": noContext(st.authorizationErrorText),
	}.bind(sc, `^the `, ` error, error_description and error_uri use only the characters OAuth 2.1 allows$`, nil)

	// The token endpoint (security.2, security.4, security.6): the flow a
	// scenario builds on, the requests it changes, and what the endpoint
	// answers.
	stepTable{
		"obtained an authorization code for an S256 code_challenge":                                      hearing(st.codeIssued, st.hearAnswer),
		"obtained an authorization code for an S256 code_challenge and less than every scope advertised": hearing(st.codeForLess, st.hearAnswer),
		"redeemed the code for a token":                                                                  hearing(st.redeemedForToken, st.hearToken),
		"redeemed the code for a refresh token":                                                          hearing(st.redeemedForRefresh, st.hearToken),
		"refreshed with the refresh token once":                                                          hearing(st.refreshedOnce, st.hearToken),
		"holds a client secret":                                                                          st.holdsSecret,
	}.bind(sc, `^the client `, `$`, nil)
	stepTable{
		" again":                 func(ctx context.Context) error { return st.redeem(ctx, nil) },
		" without code_verifier": func(ctx context.Context) error { return st.redeem(ctx, func(f url.Values) { f.Del("code_verifier") }) },
		" with another code_verifier": func(ctx context.Context) error {
			return st.redeem(ctx, func(f url.Values) { other, _ := oauthclient.PKCE(); f.Set("code_verifier", other) })
		},
		" with a redirect_uri that extends the registered one's path": func(ctx context.Context) error {
			return st.redeem(ctx, func(f url.Values) { f.Set("redirect_uri", extended(f.Get("redirect_uri"))) })
		},
		" as the second client":                       st.redeemAsSecond,
		" with its code_verifier":                     func(ctx context.Context) error { return st.redeem(ctx, nil) },
		" with an unrecognized parameter added":       st.redeemWithUnknownParam,
		" with its client secret in the request body": st.redeemSecretInBody,
		" without its client secret":                  func(ctx context.Context) error { return st.redeemAuthenticated(ctx, oauthclient.Secret{}) },
		" with a wrong client secret":                 st.redeemWrongSecret,
		" with a wrong client secret in HTTP Basic":   st.redeemWrongBasic,
	}.bind(sc, `^the client redeems the code`, `$`, st.hearToken)
	stepTable{
		"with the refresh token":                            st.refreshOnce,
		"with the same refresh token again":                 st.refreshOnce,
		"asking for a scope it was never granted":           st.refreshWider,
		"naming another resource than the MCP server":       st.refreshOtherResource,
		"with the refresh token as the second client":       st.refreshAsSecond,
		"with an empty scope":                               st.refreshWithEmptyScope,
		"with the refresh token, one character changed":     st.refreshChanged,
		"with the refresh token the first refresh returned": st.refreshNewest,
		"asking for part of the scope granted":              st.refreshPartOfScope,
	}.bind(sc, `^the client refreshes `, `$`, st.hearToken)
	sc.Step(`^the token endpoint refuses the request(?: with "([^"]+)"|, if at all, with "([^"]+)")?$`, st.tokenRefusal)
	// Revocation (RFC 7009) and introspection (RFC 7662), for an
	// authorization server that advertises them (authorization.3).
	st.registerRevocation(sc)
	st.registerIntrospection(sc)
	stepTable{
		"endpoint issues an access token":                                               noContext(st.tokenIssued),
		"endpoint refuses the refresh, or issues no scope it was never granted":         noContext(st.refreshNotWider),
		"endpoint refuses the refresh, or issues a token that is not for that resource": noContext(st.refreshNotRetargeted),
		"response carries a refresh token other than the one presented":                 noContext(st.refreshRotated),
		"response carries token_type and Cache-Control no-store":                        noContext(st.tokenResponseSafe),
		"response says how long the access token lives":                                 noContext(st.tokenLifetime),

		// PARAM-1 (OAuth 2.1 3.2).
		"response carries each parameter once":                                           noContext(st.tokenMembersOnce),
		"endpoint issues an access token with the scope the refresh without it obtained": noContext(st.issuedAsWithoutScope),
		"endpoint refuses the client":                                                    noContext(st.clientRefused),
		"endpoint answers 401 with a Basic challenge":                                    noContext(st.basicChallenged),
		"response, if a success, carries an access_token":                                noContext(st.accessTokenCarried),
		"response names its scope, if the token grants another than was asked":           noContext(st.scopeNamedWhenOther),
		"response's scope is the whole scope of the refresh token replaced":              noContext(st.refreshTokenScopeKept),
		"response's access token names an audience":                                      st.tokenAudienceNamed,
	}.bind(sc, `^the token `, `$`, nil)
}

// hearing runs a step, then hear, which makes what the step heard the last
// reply.
func hearing(step func(context.Context) error, hear func()) func(context.Context) error {
	return func(ctx context.Context) error {
		if err := step(ctx); err != nil {
			return err
		}
		hear()
		return nil
	}
}

// hearDocument makes the protected resource metadata last fetched the last
// reply.
func (st *authzState) hearDocument() {
	d := st.authz.meta
	if d == nil {
		return
	}
	st.last = &heard{status: d.status, header: http.Header(d.ex.ResponseHeader), body: d.body, json: d.object,
		exchanges: []wire.Exchange{d.ex}, answer: wire.Answer{Status: d.status, Body: d.body, JSON: d.object}}
}

// hearMetadata makes the authorization server metadata found the last reply.
func (st *authzState) hearMetadata() {
	if md := st.authz.as.md; md != nil && md.Reply != nil {
		st.hearOAuth(md.Reply)
	}
}

// hearAnswer makes the authorization endpoint's last answer the last reply.
// An answer the approval command handed back has no exchange of its own.
func (st *authzState) hearAnswer() {
	a := st.authz.as.resp
	if a == nil {
		return
	}
	st.last = &heard{status: a.status, header: http.Header(a.ex.ResponseHeader), answer: wire.Answer{Status: a.status}}
	if a.ex.Method != "" {
		st.last.exchanges = []wire.Exchange{a.ex}
	}
}

// hearToken makes the token endpoint's last answer the last reply.
func (st *authzState) hearToken() {
	if r := st.authz.as.token; r != nil {
		st.hearOAuth(r)
	}
}

// needToken returns the token endpoint's last answer, or the harness error
// of a scenario that judges one before sending a token request.
func (st *authzState) needToken() (*oauthclient.Reply, error) {
	if st.authz.as.token == nil {
		return nil, fmt.Errorf("no token request sent yet")
	}
	return st.authz.as.token, nil
}
