package steps

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
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
	// registeredAt is the registration endpoint that accepted clientID, the
	// run's own registration with the profile's redirect URI; "" when
	// clientID is not the run's (or there is none).
	registeredAt string
	// second is another client, for the rules that bind codes and refresh
	// tokens to the client they were issued to.
	second string
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
	st.authz.as.scope = st.chooseScope(ctx)
	if id := st.Target.Profile.MCPAuthorization.ClientID; id != "" {
		st.authz.as.clientID = id
		return nil
	}
	st.authzClient.mu.Lock()
	defer st.authzClient.mu.Unlock()
	st.adoptTokensClient()
	if st.authzClient.clientID != "" {
		st.authz.as.clientID = st.authzClient.clientID
		return nil
	}
	endpoint := st.authz.as.md.String("registration_endpoint")
	if endpoint == "" {
		return st.skip("the authorization server names no registration_endpoint: set mcp_authorization.client_id to a public client registered with redirect_uri " + st.redirectURI())
	}
	r, err := st.obeyRetryAfter(ctx, "registration", func() (*oauthclient.Reply, error) {
		return oauthclient.RegisterCodeClient(ctx, st.Target.HTTP, endpoint, st.redirectURI())
	})
	if err != nil {
		return st.skip(fmt.Sprintf("registration at %s failed: %v (REG-2 checks registration); set mcp_authorization.client_id", endpoint, err))
	}
	id, _ := r.String("client_id")
	if throttled(r) {
		return st.skipThrottled(r, "registration at "+endpoint, "set mcp_authorization.client_id to a client registered before")
	}
	if r.Status/100 != 2 || id == "" {
		return st.skip(fmt.Sprintf("registration at %s answered HTTP %d without a client_id (REG-2 checks registration); set mcp_authorization.client_id", endpoint, r.Status))
	}
	st.authzClient.clientID, st.authzClient.registeredAt = id, endpoint
	st.authz.as.clientID = id
	return nil
}

func (st *authzState) registerAtAS(ctx context.Context, redirectURI string) error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	endpoint := md.String("registration_endpoint")
	if endpoint == "" {
		return st.skip("the metadata names no registration_endpoint, so dynamic registration is not offered")
	}
	r, err := st.obeyRetryAfter(ctx, "registration", func() (*oauthclient.Reply, error) {
		return oauthclient.RegisterCodeClient(ctx, st.Target.HTTP, endpoint, redirectURI)
	})
	if err != nil {
		return st.depart("registration at "+endpoint, "an HTTP response", err.Error())
	}
	st.oauth = r
	st.hearOAuth(r)
	return nil
}

// registrationReply is the registration the scenario sent, unless a rate
// limit answered it: then the scenario is not run (RFC 6585 section 4).
func (st *authzState) registrationReply() (*oauthclient.Reply, error) {
	r := st.oauth
	if r == nil {
		return nil, fmt.Errorf("no registration sent yet")
	}
	if throttled(r) {
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
	if id := st.Target.Profile.MCPAuthorization.SecondClientID; id != "" {
		st.authz.as.second = id
		return nil
	}
	st.authzClient.mu.Lock()
	defer st.authzClient.mu.Unlock()
	if st.authzClient.second != "" {
		st.authz.as.second = st.authzClient.second
		return nil
	}
	endpoint := st.authz.as.md.String("registration_endpoint")
	if endpoint == "" {
		return st.skip("the authorization server names no registration_endpoint, so there is no second client to present another client's code or refresh token; " +
			"set mcp_authorization.second_client_id to another client registered with the same redirect_uri")
	}
	r, err := st.obeyRetryAfter(ctx, "registration", func() (*oauthclient.Reply, error) {
		return oauthclient.RegisterCodeClient(ctx, st.Target.HTTP, endpoint, st.redirectURI())
	})
	if err != nil {
		return st.skip(fmt.Sprintf("registering a second client at %s failed: %v", endpoint, err))
	}
	if throttled(r) {
		return st.skipThrottled(r, "registration of a second client at "+endpoint, "")
	}
	id, _ := r.String("client_id")
	if r.Status/100 != 2 || id == "" {
		return st.skip(fmt.Sprintf("registering a second client at %s answered %s (REG-2 checks registration)", endpoint, describeOAuth(r)))
	}
	st.authzClient.second = id
	st.authz.as.second = id
	return nil
}

// secondSecret is how the second client authenticates: with its secret
// when the profile gives one, else as a public client.
func (st *authzState) secondSecret() oauthclient.Secret {
	if secret := st.Target.Profile.MCPAuthorization.SecondClientSecret(); secret != "" {
		return oauthclient.SecretFor(st.authz.as.md, secret)
	}
	return oauthclient.Secret{}
}

// adoptTokensClient makes the client the run registered for its tokens,
// before the scenarios, the run's own client when it was registered with
// this authorization server: a server with a registration limit is asked
// once less. The caller holds st.authzClient.mu.
func (st *authzState) adoptTokensClient() {
	if st.authzClient.clientID != "" {
		return
	}
	md := st.authz.as.md
	if id := st.Target.Tokens.Client.At(md.String("issuer")); id != "" {
		st.authzClient.clientID, st.authzClient.registeredAt = id, md.String("registration_endpoint")
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
	st.adoptTokensClient()
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
	id, _ := r.String("client_id")
	if r.Status/100 != 2 || id == "" {
		return st.skip(fmt.Sprintf("the control failed: the registration with redirect_uri %s answered %s, so a refusal would mean nothing (REG-2 judges it)",
			st.redirectURI(), describeOAuth(r)))
	}
	st.authzClient.mu.Lock()
	if st.authzClient.clientID == "" {
		st.authzClient.clientID, st.authzClient.registeredAt = id, endpoint
	}
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
// profile's, with a fragment when profiles says so (withFragment).
func (st *authzState) registers(ctx context.Context, uri, profiles string) error {
	switch {
	case uri != "":
		return st.registerAtAS(ctx, uri)
	case strings.HasSuffix(profiles, "and a fragment"):
		return st.registerAtAS(ctx, withFragment(st.redirectURI()))
	}
	return st.registerAtAS(ctx, st.redirectURI())
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
	if throttled(r) {
		return "", "", st.skipThrottled(r, "registration at "+endpoint, "")
	}
	if id, _ = r.String("client_id"); r.Status/100 != 2 || id == "" {
		return "", fmt.Sprintf("registration at %s answered %s", endpoint, describeOAuth(r)), nil
	}
	return id, "", nil
}
