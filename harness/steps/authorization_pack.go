package steps

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/conform-mcp/conform/harness/authcode"
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
}

// maxDocument bounds a metadata document read by the harness.
const maxDocument = 1 << 20

// registerAuthz binds the steps of the mcp-authorization pack
// (spec/mcp-authorization): discovery, token handling, scope challenges and
// Origin validation.
func (st *authzState) registerAuthz(sc stepContext) {
	st.vars["mcp_authorization.invalid_origin"] = st.Target.Profile.MCPAuthorization.InvalidOrigin

	// Discovery (discovery.1, discovery.2; RFC 9728).
	sc.Step(`^the protected resource metadata, found the way a client finds it$`, st.discoverMetadata)
	sc.Step(`^the protected resource metadata a client finds, if any$`, st.metadataIfAny)
	sc.Step(`^a client fetches the metadata the challenge's resource_metadata names$`, st.fetchChallengedMetadata)
	sc.Step(`^a client tries the well-known URIs in order, the MCP endpoint's path first, then the root$`, st.tryWellKnown)
	sc.Step(`^the metadata is a JSON object served with HTTP 200$`, st.metadataIsObject)
	sc.Step(`^the metadata's authorization_servers holds at least one absolute URL$`, st.metadataNamesServers)
	sc.Step(`^the metadata's resource is the MCP endpoint's URL$`, st.resourceIsEndpoint)
	sc.Step(`^the metadata's resource is the identifier its well-known URI was built from$`, st.resourceIsBuiltFrom)
	sc.Step(`^the metadata's scopes_supported does not name "([^"]*)"$`, st.scopesSupportedLacks)

	// Token handling and scope challenges (authorization.9.2, 10, 11.1).
	sc.Step(`^the caller sends the request that needs authorization$`, st.sendProtected)
	sc.Step(`^the caller sends the request that needs more scope$`, st.sendScoped)
	st.credentials["an expired token"] = noContext(st.withExpiredToken)
	st.credentials["a token issued for another resource"] = func(context.Context) error {
		if why := st.Target.Tokens.OtherResourceUnproven; why != "" && st.Target.Tokens.OtherResource != "" {
			return st.skip("the token obtained for mcp_authorization.other_resource is not shown to be bound to that resource: " + why +
				"; audience binding holds \"when the Authorization Server supports the capability\" (security.1), so put a token issued for another resource in mcp_authorization.other_resource_token_env")
		}
		return st.withToken(st.Target.Tokens.OtherResource, "other-resource-token")
	}
	st.credentials["a token that lacks the scope the scoped request needs"] = func(context.Context) error {
		return st.withToken(st.Target.Tokens.Limited, "limited-token")
	}
	sc.Step(`^the request is served: HTTP 2xx$`, st.served)
	sc.Step(`^the server serves the request that needs authorization with the target's credential$`, st.controlServed)
	sc.Step(`^the request is refused as malformed: 400 or 401, with a Bearer challenge$`, st.refusedAsMalformed)
	sc.Step(`^the server serves the request that needs authorization with that token$`, st.limitedServed)
	sc.Step(`^the server refuses the request 403, insufficient permissions$`, st.refusedForScope)
	sc.Step(`^the server refuses the request that needs authorization without a token$`, st.refusedWithoutToken)
	sc.Step(`^a server that refuses the request that needs authorization does so as MCP authorization does$`, st.usesMCPAuthorization)
	sc.Step(`^the caller sends the request that needs authorization with the target's credential in the URI query string$`, st.sendWithQueryToken)
	sc.Step(`^a caller presenting the target's credential with one character changed$`, st.tamperedCredential)
	sc.Step(`^the Bearer challenge names a scope$`, st.challengeNamesScope)
	sc.Step(`^the Bearer challenge's error is "([^"]*)"$`, st.challengeError)
	sc.Step(`^the Bearer challenge carries no error$`, st.challengeWithoutError)
	sc.Step(`^the challenge's scope does not name "([^"]*)"$`, st.challengeScopeLacks)

	// Origin validation (transport.1).
	st.credentials["the target's credential, or an anonymous caller when the profile has none"] = noContext(st.credentialOrAnonymous)
	sc.Step(`^the caller sends a request the server answers on its own, without an Origin header$`, func(ctx context.Context) error { return st.probeWithOrigin(ctx, "") })
	sc.Step(`^the caller sends the same request with the Origin "([^"]*)"$`, st.probeWithOrigin)
	sc.Step(`^the reply is neither 401 nor 403, so the Origin alone can decide$`, st.originControl)
}

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
		return defaultParams(r.Method)
	}
	return r.Params
}

func hasBearer(challenges []string) bool { return bearerIn(challenges) != nil }

// registerAuthzServer binds the steps that drive the authorization server
// (discovery.3, security.2, 4 and 6, authorization.5 and 7.1).
func (st *authzState) registerAuthzServer(sc stepContext) {
	sc.Step(`^the authorization server's metadata, found at the well-known URIs in the specification's order$`, st.discoverAS)
	sc.Step(`^the authorization server's metadata, found the way a client finds it$`, st.foundAS)
	sc.Step(`^the authorization server metadata names an authorization_endpoint and a token_endpoint$`, st.asNamesEndpoints)
	sc.Step(`^the authorization server metadata's issuer is the identifier its well-known URI was built from$`, st.asIssuerMatches)
	sc.Step(`^the authorization server metadata's code_challenge_methods_supported includes "([^"]*)"$`, st.asMethodListed)
	sc.Step(`^the authorization server metadata's code_challenge_methods_supported does not include "([^"]*)"$`, st.asMethodNotListed)
	sc.Step(`^the authorization server metadata's client_id_metadata_document_supported is true$`, st.asCIMD)
	sc.Step(`^the authorization server metadata advertises authorization_response_iss_parameter_supported$`, st.asAdvertisesIss)

	sc.Step(`^a public client registered with the authorization server$`, st.publicClient)
	sc.Step(`^a public client registers at the advertised registration_endpoint$`, func(ctx context.Context) error { return st.registerAtAS(ctx, st.redirectURI()) })
	sc.Step(`^a public client registers at the advertised registration_endpoint with the redirect_uri "([^"]*)"$`, st.registerAtAS)
	sc.Step(`^the advertised registration_endpoint registers a public client with the profile's redirect_uri$`, st.registrationControl)
	sc.Step(`^the registration is refused$`, st.registrationRefusedAS)
	sc.Step(`^the registration answers 201 with a client_id$`, st.registrationAnswered)

	sc.Step(`^the client sends an authorization request without code_challenge$`, func(ctx context.Context) error {
		return st.sendAuthorization(ctx, func(r *authcode.Request) { r.Challenge, r.Method = "", "" })
	})
	sc.Step(`^the client sends an authorization request the server must refuse: without code_challenge, else with a response_type it does not support$`, st.sendRefusable)
	sc.Step(`^the client sends an authorization request with code_challenge_method "([^"]*)"$`, func(ctx context.Context, m string) error {
		return st.sendAuthorization(ctx, func(r *authcode.Request) { r.Method = m })
	})
	sc.Step(`^the client sends an authorization request whose redirect_uri extends the registered one's path$`, func(ctx context.Context) error {
		return st.sendAuthorization(ctx, func(r *authcode.Request) { r.RedirectURI = extended(r.RedirectURI) })
	})
	sc.Step(`^the client's authorization request is approved$`, st.approveAuthorization)
	sc.Step(`^an authorization code issued to the client for an S256 code_challenge$`, st.codeIssued)
	sc.Step(`^the authorization server refuses the authorization request$`, st.authorizationRefused)
	sc.Step(`^the authorization server answers with the error response "([^"]*)"$`, st.authorizationErrorIs)
	sc.Step(`^the authorization server does not redirect to that redirect_uri$`, st.noRedirectToUnregistered)
	sc.Step(`^the authorization server answers by redirecting to the redirect_uri with an error$`, st.errorRedirect)
	sc.Step(`^the authorization response carries iss$`, st.responseCarriesIss)
	sc.Step(`^the authorization response carries a code$`, st.responseCarriesCode)
	sc.Step(`^when the authorization response carries iss, the metadata advertises authorization_response_iss_parameter_supported$`, st.issAdvertisedWhenSent)
	sc.Step(`^the authorization response's iss is the metadata's issuer$`, st.issIsIssuer)

	sc.Step(`^the client redeems the code again$`, func(ctx context.Context) error { return st.redeem(ctx, nil) })
	sc.Step(`^the client redeems the code without code_verifier$`, func(ctx context.Context) error {
		return st.redeem(ctx, func(f url.Values) { f.Del("code_verifier") })
	})
	sc.Step(`^the client redeems the code with another code_verifier$`, func(ctx context.Context) error {
		return st.redeem(ctx, func(f url.Values) { other, _ := authcode.PKCE(); f.Set("code_verifier", other) })
	})
	sc.Step(`^the client redeems the code with a redirect_uri that extends the registered one's path$`, func(ctx context.Context) error {
		return st.redeem(ctx, func(f url.Values) { f.Set("redirect_uri", extended(f.Get("redirect_uri"))) })
	})
	sc.Step(`^the client redeemed the code for a refresh token$`, st.redeemedForRefresh)
	sc.Step(`^the client refreshes with the refresh token$`, st.refreshOnce)
	sc.Step(`^the client refreshes with the same refresh token again$`, st.refreshOnce)
	sc.Step(`^the token endpoint issues an access token$`, st.tokenIssued)
	sc.Step(`^the token endpoint refuses the request$`, func() error { return st.tokenRefused("") })
	sc.Step(`^the token endpoint refuses the request with "([^"]*)"$`, st.tokenRefused)
	sc.Step(`^the token response carries a refresh token other than the one presented$`, st.refreshRotated)
	sc.Step(`^the client redeemed the code for a token$`, st.redeemedForToken)
	sc.Step(`^the client refreshed with the refresh token once$`, st.refreshedOnce)
	sc.Step(`^a refusal, if the token endpoint refuses, is "([^"]*)"$`, st.refusalIs)
	sc.Step(`^the token response carries token_type and Cache-Control no-store$`, st.tokenResponseSafe)
	sc.Step(`^the client's valid authorization request, made the same way, obtains a code and a token$`, st.controlFlow)
	sc.Step(`^the authorization response carries the state sent, exactly$`, st.stateEchoed)
	sc.Step(`^the client sends an authorization request with a client_id the server never issued$`, func(ctx context.Context) error {
		return st.sendAuthorization(ctx, func(r *authcode.Request) { r.ClientID = "conform-unknown-client-7f3a9c" })
	})
	sc.Step(`^the authorization server does not redirect to the redirect_uri$`, st.noRedirectToUnregistered)
	sc.Step(`^the client's authorization request carries an Origin header$`, st.authorizationWithOrigin)
	sc.Step(`^the authorization endpoint does not allow that origin by CORS$`, st.noCORS)
	sc.Step(`^the authorization server metadata names response_types_supported$`, st.asResponseTypes)
	sc.Step(`^the authorization server metadata names every endpoint with https unless its host is loopback$`, st.asHTTPS)
	sc.Step(`^the registered redirect_uri is a loopback IP literal$`, st.loopbackRedirect)
	sc.Step(`^a second public client registered with the authorization server$`, st.secondClient)
	sc.Step(`^the second client redeems the code$`, func(ctx context.Context) error {
		as := &st.authz.as
		if as.code == "" {
			return fmt.Errorf("no authorization code yet")
		}
		return st.sendToken(ctx, authcode.CodeForm(as.code, as.second, st.redirectURI(), as.verify, st.endpoint()), st.secondSecret())
	})
	sc.Step(`^the second client refreshes with the refresh token$`, func(ctx context.Context) error {
		form := st.refreshForm()
		form.Set("client_id", st.authz.as.second)
		return st.sendToken(ctx, form, st.secondSecret())
	})
	sc.Step(`^the token response says how long the access token lives$`, st.tokenLifetime)
	sc.Step(`^the client refreshes asking for a scope it was never granted$`, st.refreshWider)
	sc.Step(`^the refresh is refused, or issues no scope it was never granted$`, st.refreshNotWider)
	sc.Step(`^the client sends its authorization request with the redirect_uri on another port$`, func(ctx context.Context) error {
		return st.sendAuthorization(ctx, func(r *authcode.Request) { r.RedirectURI = otherPort(r.RedirectURI) })
	})
	sc.Step(`^the authorization server accepts that redirect_uri, redirecting to it$`, st.acceptsRedirect)
	st.registerAuthzServerRules(sc)
}

func (st *authzState) redirectURI() string { return st.Target.Profile.MCPAuthorization.RedirectURI }

// registerAuthzServerRules binds the steps of the rules a client can see at
// the authorization server beyond the code flow itself: what a refresh token
// is bound to (security.2, OAuth 2.1 3.2.3 and 4.3.1), a CORS preflight at
// the authorization endpoint (OAuth 2.1 3.1), and a redirect URI with a
// fragment at registration (OAuth 2.1 2.3).
func (st *authzState) registerAuthzServerRules(sc stepContext) {
	sc.Step(`^the client's valid refresh obtains a token$`, func(ctx context.Context) error { return st.refreshControl(ctx, false) })
	sc.Step(`^the client's valid refresh, asking for the scope granted, obtains a token$`, func(ctx context.Context) error { return st.refreshControl(ctx, true) })
	sc.Step(`^the client refreshes naming another resource than the MCP server$`, st.refreshOtherResource)
	sc.Step(`^the refresh is refused, or issues a token that is not for that resource$`, st.refreshNotRetargeted)
	sc.Step(`^the same authorization request without an Origin header is answered with a page or a redirect$`, st.authorizationAnswered)
	sc.Step(`^a script on that origin asks the authorization endpoint's CORS preflight for the request$`, st.corsPreflight)
	sc.Step(`^a public client registers at the advertised registration_endpoint with the profile's redirect_uri and a fragment$`, func(ctx context.Context) error {
		return st.registerAtAS(ctx, withFragment(st.redirectURI()))
	})
}
