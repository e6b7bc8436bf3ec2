package steps

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/wire"
)

// authzClient is the public client the suite registers once per run with
// the authorization server, so that a server with a registration limit is
// asked as few times as the pack allows.
type authzClient struct {
	mu       sync.Mutex
	clientID string
	// secret is how clientID authenticates: with the client_secret and
	// token_endpoint_auth_method its registration answered with, when the
	// server made it a confidential client (RFC 7591 section 3.2.1).
	secret oauthclient.Secret
	// registeredAt is the registration endpoint that accepted clientID, the
	// run's own registration with the profile's redirect URI; "" when
	// clientID is not the run's (or there is none).
	registeredAt string
	// second is another client, for the rules that bind codes and refresh
	// tokens to the client they were issued to, and secondSecret how it
	// authenticates.
	second       string
	secondSecret oauthclient.Secret
	// answer is the answer to the run's registration with the profile's
	// redirect URI at answeredAt, whoever sent it: the rules that judge that
	// answer (REG-2, REG-8, REG-10, REG-11, REG-13) read the one answer, so
	// a server with a registration limit is asked once for them all.
	answer     *oauthclient.Reply
	answeredAt string
}

func (st *authzState) asCIMD() error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	if !md.Bool("client_id_metadata_document_supported") {
		return st.depart("client_id_metadata_document_supported (authorization.3)", "true", wire.JSONText(md.Reply.JSON["client_id_metadata_document_supported"]), md.Reply.Exchange)
	}
	return nil
}

// publicClient is the client the scenario uses: the profile's, else the one
// registered earlier in the run, else a new registration.
func (st *authzState) publicClient(ctx context.Context) error {
	if err := st.usableAS(ctx); err != nil {
		return err
	}
	st.authz.as.scope = withOfflineAccess(st.chooseScope(ctx), st.authz.as.md)
	if id := st.Target.Profile.MCPAuthorization.ClientID; id != "" {
		st.authz.as.clientID = id
		st.authz.as.secret = oauthclient.SecretFor(st.authz.as.md, st.Target.Profile.MCPAuthorization.ClientAuthMethod, st.Target.Profile.MCPAuthorization.ClientSecret())
		return nil
	}
	st.authzClient.mu.Lock()
	defer st.authzClient.mu.Unlock()
	if st.authzClient.clientID != "" {
		st.authz.as.clientID, st.authz.as.secret = st.authzClient.clientID, st.authzClient.secret
		return nil
	}
	endpoint := st.authz.as.md.String("registration_endpoint")
	if endpoint == "" {
		return st.skip("the authorization server names no registration_endpoint: set mcp_authorization.client_id to a public client registered with redirect_uri " + st.redirectURI())
	}
	r, id, secret, err := st.registerRunClient(ctx, endpoint, flowClient)
	if r != nil {
		st.authzClient.answer, st.authzClient.answeredAt = r, endpoint
	}
	if err != nil {
		return err
	}
	st.authzClient.clientID, st.authzClient.registeredAt, st.authzClient.secret = id, endpoint, secret
	st.authz.as.clientID, st.authz.as.secret = id, secret
	return nil
}

// runClient names one of the run's two registered clients in the reasons
// a registration that fails leaves a scenario not run for: what the
// registration is, and what the profile can set instead.
type runClient struct{ what, remedy string }

var (
	// flowClient is the client of the run's flows.
	flowClient = runClient{"registration", "set mcp_authorization.client_id to a client registered before"}
	// otherClient is the second client, whose codes and refresh tokens are
	// not the first's.
	otherClient = runClient{"registration of a second client", "set mcp_authorization.second_client_id to another client registered with the same redirect_uri"}
)

// registerRunClient registers client at endpoint, a public client with the
// profile's redirect URI, waiting out a Retry-After (RFC 6585 section 4):
// its client_id, and how it authenticates (its secret and method, when the
// server made it confidential; RFC 7591 section 3.2.1). r is the answer, nil
// when none came or a rate limit answered.
func (st *authzState) registerRunClient(ctx context.Context, endpoint string, client runClient) (r *oauthclient.Reply, id string, secret oauthclient.Secret, err error) {
	r, err = st.obeyRetryAfter(ctx, "registration", func() (*oauthclient.Reply, error) {
		return oauthclient.RegisterCodeClient(ctx, st.Target.HTTP, endpoint, st.redirectURI())
	})
	at := client.what + " at " + endpoint
	if err != nil {
		return nil, "", secret, st.skip(fmt.Sprintf("%s failed: %v (REG-2 checks registration); %s", at, err, client.remedy))
	}
	if r.Throttled() {
		return nil, "", secret, st.skipThrottled(r, at, client.remedy)
	}
	id, value, method := oauthclient.Registered(r)
	if r.Status/100 != 2 || id == "" {
		return r, "", secret, st.skip(fmt.Sprintf("%s answered %s, issuing no client_id (REG-2 checks registration); %s", at, describeOAuth(r), client.remedy))
	}
	return r, id, oauthclient.SecretFor(st.authz.as.md, method, value), nil
}

// withOfflineAccess adds offline_access to scope when the authorization
// server's metadata names it in scopes_supported, as a client that desires
// refresh tokens MAY (authorization.10): common servers issue them only
// then, and the refresh rules need one.
func withOfflineAccess(scope string, md *oauthclient.ServerMetadata) string {
	if md == nil || !slices.Contains(md.Strings("scopes_supported"), "offline_access") || slices.Contains(strings.Fields(scope), "offline_access") {
		return scope
	}
	return strings.TrimSpace(scope + " offline_access")
}

func (st *authzState) registerAtAS(ctx context.Context, redirectURI string) error {
	return st.registerMetadata(ctx, oauthclient.CodeClientMetadata(redirectURI))
}

// registerMetadata registers a client with the given metadata at the
// advertised registration_endpoint, and makes the answer the last reply.
func (st *authzState) registerMetadata(ctx context.Context, metadata map[string]any) error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	endpoint := md.String("registration_endpoint")
	if endpoint == "" {
		return st.skip("the metadata names no registration_endpoint, so dynamic registration is not offered")
	}
	r, err := st.obeyRetryAfter(ctx, "registration", func() (*oauthclient.Reply, error) {
		return oauthclient.New("", oauthclient.Endpoints{Register: endpoint}, st.Target.HTTP).Register(ctx, metadata)
	})
	if err != nil {
		return st.depart("registration at "+endpoint, "an HTTP response", err.Error())
	}
	st.hearRegistration(r)
	return nil
}

// hearRegistration makes a registration's answer the scenario's, keeping a
// client_secret it issued out of every report.
func (st *authzState) hearRegistration(r *oauthclient.Reply) {
	if secret, _ := r.String("client_secret"); secret != "" {
		st.hide(secret)
	}
	st.oauth = r
	st.hearOAuth(r)
}

// registrationReply is the registration the scenario sent, unless a rate
// limit answered it: then the scenario is not run (RFC 6585 section 4).
func (st *authzState) registrationReply() (*oauthclient.Reply, error) {
	r := st.oauth
	if r == nil {
		return nil, fmt.Errorf("no registration sent yet")
	}
	if r.Throttled() {
		return nil, st.skipThrottled(r, "registration", "")
	}
	return r, nil
}

func (st *authzState) registrationAnswered() error {
	r, err := st.registrationReply()
	if err != nil {
		return err
	}
	errCode, _ := r.String("error")
	switch {
	case r.Status == http.StatusUnauthorized || r.Status == http.StatusForbidden:
		// RFC 7591 3 lets the endpoint be protected (an initial access token).
		return st.skip(fmt.Sprintf("the registration endpoint answered HTTP %d: it is protected, as RFC 7591 3 allows; set mcp_authorization.client_id to a registered public client", r.Status))
	case r.Status == http.StatusBadRequest && errCode != "":
		// RFC 7591 3.2.2 lets the server refuse a registration with an error.
		return st.skip(fmt.Sprintf("the authorization server refused the registration as RFC 7591 3.2.2 allows (%s); set mcp_authorization.client_id to a registered public client", describeOAuth(r)))
	}
	if id, _ := r.String("client_id"); r.Status != http.StatusCreated || id == "" {
		return st.depart("registration (RFC 7591 3.2.1, 3.2.2)", "HTTP 201 with a client_id, or a 400 with an RFC 7591 error", describeOAuth(r), r.Exchange)
	}
	return nil
}

// secondClient registers, once per run, a second public client with the
// same redirect URI: a code or a refresh token of the first is not its own.
func (st *authzState) secondClient(ctx context.Context) error {
	if err := st.registerSecond(ctx); err != nil {
		return err
	}
	if as := &st.authz.as; as.second == as.clientID {
		// A code or refresh token presented by its own client proves
		// nothing of the binding CODE-2 and REFRESH-3 judge.
		from := "the registration answered"
		if st.Target.Profile.MCPAuthorization.SecondClientID != "" {
			from = "mcp_authorization.second_client_id names"
		}
		return st.skip(fmt.Sprintf("%s the client_id %q of the client the run uses already, so there is no second client to present another client's code or refresh token; "+
			"set mcp_authorization.second_client_id to another client registered with the same redirect_uri", from, as.second))
	}
	return nil
}

// registerSecond finds the second client: the profile's, else the one
// registered earlier in the run, else a new registration.
func (st *authzState) registerSecond(ctx context.Context) error {
	if id := st.Target.Profile.MCPAuthorization.SecondClientID; id != "" {
		st.authz.as.second = id
		st.authz.as.secondSecret = oauthclient.SecretFor(st.authz.as.md, "", st.Target.Profile.MCPAuthorization.SecondClientSecret())
		return nil
	}
	st.authzClient.mu.Lock()
	defer st.authzClient.mu.Unlock()
	st.adoptTokensClient()
	if st.authzClient.second != "" {
		st.authz.as.second, st.authz.as.secondSecret = st.authzClient.second, st.authzClient.secondSecret
		return nil
	}
	endpoint := st.authz.as.md.String("registration_endpoint")
	if endpoint == "" {
		return st.skip("the authorization server names no registration_endpoint, so there is no second client to present another client's code or refresh token; " +
			"set mcp_authorization.second_client_id to another client registered with the same redirect_uri")
	}
	_, id, secret, err := st.registerRunClient(ctx, endpoint, otherClient)
	if err != nil {
		return err
	}
	st.authzClient.second, st.authzClient.secondSecret = id, secret
	st.authz.as.second, st.authz.as.secondSecret = id, secret
	return nil
}

// adoptTokensClient makes the client the run registered for its tokens,
// before the scenarios, the run's second client when it was registered with
// this authorization server: a server with a registration limit is asked
// once less, and the second client is never authorized again, so the
// credential it obtained survives an authorization server that revokes a
// client's earlier tokens when that client is authorized again (issue 21
// item 3b). The caller holds st.authzClient.mu.
func (st *authzState) adoptTokensClient() {
	if st.authzClient.second != "" {
		return
	}
	md := st.authz.as.md
	c := st.Target.Tokens.Client
	if id := c.At(md.String("issuer")); id != "" && id != st.authzClient.clientID {
		st.authzClient.second, st.authzClient.secondSecret = id, oauthclient.SecretFor(md, c.Method, c.Secret)
	}
}

// registrationControl is the positive control of a refused registration:
// the same registration with the profile's redirect URI is accepted. The
// run's own client, registered with that very body at the same endpoint, is
// that control already; when there is none yet, the control's client becomes
// it. Either way a server with a registration limit is asked once.
func (st *authzState) registrationControl(ctx context.Context) error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	endpoint := md.String("registration_endpoint")
	st.authzClient.mu.Lock()
	accepted := st.authzClient.registeredAt != "" && st.authzClient.registeredAt == endpoint
	st.authzClient.mu.Unlock()
	if accepted {
		st.oauth, st.last = nil, nil
		return nil
	}
	if err := st.registerAtAS(ctx, st.redirectURI()); err != nil {
		return err
	}
	r, err := st.registrationReply()
	if err != nil {
		return err
	}
	id, secret, method := oauthclient.Registered(r)
	if r.Status/100 != 2 || id == "" {
		return st.skip(fmt.Sprintf("the control failed: the registration with redirect_uri %s answered %s, so a refusal would mean nothing (REG-2 judges it)",
			st.redirectURI(), describeOAuth(r)))
	}
	st.authzClient.mu.Lock()
	if st.authzClient.clientID == "" {
		st.authzClient.clientID, st.authzClient.registeredAt = id, endpoint
		st.authzClient.secret = oauthclient.SecretFor(md, method, secret)
	}
	st.authzClient.answer, st.authzClient.answeredAt = r, endpoint
	st.authzClient.mu.Unlock()
	st.oauth, st.last = nil, nil
	return nil
}

// registrationRefusedAS: the registration is answered with an error (RFC 7591
// 3.2.2), or a 4xx; a client_id is an acceptance.
func (st *authzState) registrationRefusedAS() error {
	r, err := st.registrationReply()
	if err != nil {
		return err
	}
	if id, _ := r.String("client_id"); r.Status/100 == 2 && id != "" {
		return st.depart("registration (security.3, RFC 7591 3.2.2)", "a refusal: HTTP 400 with an RFC 7591 error", describeOAuth(r), r.Exchange)
	}
	if r.Status/100 != 4 {
		return st.depart("registration (RFC 7591 3.2.2)", "a refusal: HTTP 400 with an RFC 7591 error", describeOAuth(r), r.Exchange)
	}
	return nil
}

// withFragment is the redirect URI with a fragment, which "The redirect URI
// MUST NOT include" (OAuth 2.1 2.3).
func withFragment(redirectURI string) string {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return redirectURI + "#conform"
	}
	u.Fragment = "conform"
	return u.String()
}

// registers registers a public client at the advertised
// registration_endpoint with the redirect URI uri, or, when uri is "", the
// profile's: with a fragment (withFragment), on another path (onAnotherPath), or
// with a metadata field no specification defines when profiles says so, else
// as the run registered its own client (ownRegistration).
func (st *authzState) registers(ctx context.Context, uri, profiles string) error {
	switch {
	case uri != "":
		return st.registerAtAS(ctx, uri)
	case strings.HasSuffix(profiles, "and a fragment"):
		return st.registerAtAS(ctx, withFragment(st.redirectURI()))
	case strings.HasSuffix(profiles, "on another path"):
		return st.registerAtAS(ctx, onAnotherPath(st.redirectURI()))
	case strings.HasSuffix(profiles, "no specification defines"):
		metadata := oauthclient.CodeClientMetadata(st.redirectURI())
		metadata[unknownMetadata] = "conform"
		return st.registerMetadata(ctx, metadata)
	}
	return st.ownRegistration(ctx)
}

// onAnotherPath is the redirect URI with a path of its own: the client it
// registers differs from the run's, and never holds a redirect URI the
// open redirection rules present as unregistered (extended).
func onAnotherPath(redirectURI string) string {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return redirectURI + "/another-client"
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/another-client"
	return u.String()
}

// unknownMetadata is a client metadata field that neither RFC 7591 nor any
// registry defines, which "The authorization server MUST ignore" (RFC 7591
// section 2).
const unknownMetadata = "conform_undefined_metadata"

// ownRegistration is the registration with the profile's redirect URI: the
// answer the run already has from this endpoint, else a new one, kept for
// the scenarios after it.
func (st *authzState) ownRegistration(ctx context.Context) error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	endpoint := md.String("registration_endpoint")
	st.authzClient.mu.Lock()
	r := st.authzClient.answer
	if st.authzClient.answeredAt != endpoint {
		r = nil
	}
	st.authzClient.mu.Unlock()
	if r != nil && endpoint != "" {
		st.hearRegistration(r)
		return nil
	}
	if err := st.registerAtAS(ctx, st.redirectURI()); err != nil {
		return err
	}
	r = st.oauth
	if r.Throttled() {
		return nil
	}
	st.authzClient.mu.Lock()
	defer st.authzClient.mu.Unlock()
	st.authzClient.answer, st.authzClient.answeredAt = r, endpoint
	// An accepted registration with the profile's redirect URI is the run's
	// own client when it has none yet, as registrationControl's is.
	if id, _ := r.String("client_id"); r.Status/100 == 2 && id != "" && st.authzClient.clientID == "" {
		st.authzClient.clientID, st.authzClient.registeredAt = id, endpoint
	}
	return nil
}

// registrationNewClientID: the client_id a registration returns "SHOULD NOT
// be currently valid for any other registered client" (RFC 7591 3.2.1). The
// registration judged differs from the first client's in its redirect_uris,
// so it is no instance of that client, which the section lets share one.
func (st *authzState) registrationNewClientID() error {
	r, err := st.registrationReply()
	if err != nil {
		return err
	}
	id, _ := r.String("client_id")
	if first := st.authz.as.clientID; id != "" && id == first {
		return st.depart("client_id of a registration with other metadata (RFC 7591 3.2.1)", "a client_id other than "+first+", the first client's",
			"client_id "+id, r.Exchange)
	}
	return nil
}

// registrationReturnsRedirects: "the authorization server MUST return all
// registered metadata about the client" (RFC 7591 3.2.1). The redirect_uris
// the client sent were registered, as sent or as the server replaced them
// (section 3.2.1 allows it), so the answer names them; what else a server
// registers is its own.
func (st *authzState) registrationReturnsRedirects() error {
	r, err := st.registrationReply()
	if err != nil {
		return err
	}
	if list, _ := r.JSON["redirect_uris"].([]any); len(list) == 0 {
		return st.depart("registration response (RFC 7591 3.2.1: all registered metadata)", "the redirect_uris registered",
			describeOAuth(r), r.Exchange)
	}
	return nil
}

// registrationAccepted: "The authorization server MUST ignore any client
// metadata sent by the client that it does not understand" (RFC 7591 2): a
// registration the server took without the field it takes with it.
func (st *authzState) registrationAccepted() error {
	r, err := st.registrationReply()
	if err != nil {
		return err
	}
	if id, _ := r.String("client_id"); r.Status/100 != 2 || id == "" {
		return st.depart("registration with the metadata field "+unknownMetadata+" (RFC 7591 2: unknown metadata is ignored)",
			"HTTP 201 with a client_id, as the same registration without it got", describeOAuth(r), r.Exchange)
	}
	return nil
}

// registrationOpen: "the client registration endpoint SHOULD allow
// registration requests with no authorization (which is to say, with no
// initial access token in the request)" (RFC 7591 3). Only a 401 or a 403
// says authorization is wanted; a refusal of the metadata is no statement
// about it.
func (st *authzState) registrationOpen() error {
	r, err := st.registrationReply()
	if err != nil {
		return err
	}
	if r.Status == http.StatusUnauthorized || r.Status == http.StatusForbidden {
		return st.depart("registration without an initial access token (RFC 7591 3)", "a registration allowed with no authorization",
			describeOAuth(r), r.Exchange)
	}
	return nil
}

// registrationExpiresSecret: client_secret_expires_at is "REQUIRED if
// "client_secret" is issued" (RFC 7591 3.2.1). A public client's answer
// without a secret has nothing to judge.
func (st *authzState) registrationExpiresSecret() error {
	r, err := st.registrationReply()
	if err != nil {
		return err
	}
	if secret, _ := r.String("client_secret"); secret == "" {
		return st.skip("not applicable: the registration issued no client_secret, so client_secret_expires_at is not required (RFC 7591 3.2.1)")
	}
	if _, ok := r.JSON["client_secret_expires_at"].(float64); !ok {
		return st.depart("registration response with a client_secret (RFC 7591 3.2.1)", "client_secret_expires_at", describeOAuth(r), r.Exchange)
	}
	return nil
}

// sharedSecretMethods are the token_endpoint_auth_method values that
// authenticate a client with a shared secret (RFC 7591 2; client_secret_jwt
// in OpenID Connect Core 9); a method with a key of the client's own is no
// shared secret.
var sharedSecretMethods = []string{"client_secret_basic", "client_secret_post", "client_secret_jwt"}

// registrationKeptPublic: "it is NOT RECOMMENDED for authorization servers
// to require client authentication of public native apps clients using a
// shared secret" (OAuth 2.1 8.1.1). The run's registration asks for
// token_endpoint_auth_method none; when it names application_type native
// (a loopback redirect URI), a shared-secret method answered instead is
// that requirement.
func (st *authzState) registrationKeptPublic() error {
	r, err := st.registrationReply()
	if err != nil {
		return err
	}
	if kind := oauthclient.ApplicationType(st.redirectURI()); kind != "native" {
		return st.skip(fmt.Sprintf("the profile's redirect_uri %s makes the registration a %s client's, and OAuth 2.1 8.1.1 speaks of native apps", st.redirectURI(), kind))
	}
	// A secret issued alongside token_endpoint_auth_method none requires
	// nothing of the client; a shared-secret method does.
	if method, _ := r.String("token_endpoint_auth_method"); slices.Contains(sharedSecretMethods, method) {
		return st.depart("registration of a native public client asking token_endpoint_auth_method none (OAuth 2.1 8.1.1)",
			"token_endpoint_auth_method none, no shared secret required", describeOAuth(r), r.Exchange)
	}
	return nil
}

// registerOwn registers a client of the scenario's own with redirectURIs,
// as RegisterCodeClient does with one. It returns the client_id, or why
// the server did not register it (refused, "" when it did); what keeps
// the question from being asked at all leaves the scenario not run.
func (st *authzState) registerOwn(ctx context.Context, redirectURIs []string) (id, refused string, err error) {
	endpoint := st.authz.as.md.String("registration_endpoint")
	if endpoint == "" {
		return "", "the authorization server names no registration_endpoint", nil
	}
	r, err := st.obeyRetryAfter(ctx, "registration", func() (*oauthclient.Reply, error) {
		return oauthclient.New("", oauthclient.Endpoints{Register: endpoint}, st.Target.HTTP).Register(ctx, map[string]any{
			"client_name": "conform", "redirect_uris": redirectURIs, "grant_types": []string{"authorization_code", "refresh_token"},
			"response_types": []string{"code"}, "token_endpoint_auth_method": "none", "application_type": oauthclient.ApplicationType(redirectURIs[0]),
		})
	})
	if err != nil {
		return "", "", st.skip(fmt.Sprintf("registration at %s failed: %v (REG-2 checks registration)", endpoint, err))
	}
	if r.Throttled() {
		return "", "", st.skipThrottled(r, "registration at "+endpoint, "")
	}
	if id, _ = r.String("client_id"); r.Status/100 != 2 || id == "" {
		return "", fmt.Sprintf("registration at %s answered %s", endpoint, describeOAuth(r)), nil
	}
	return id, "", nil
}
