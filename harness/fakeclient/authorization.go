package fakeclient

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
)

// errRefused is the error of a flow the client stopped on purpose, as a
// rule tells it to.
var errRefused = errors.New("refused to go on")

// callbackWait bounds how long the client waits for the browser.
const callbackWait = 30 * time.Second

// runAuthorization makes the run's call, and when the server asks (401,
// or 403 insufficient_scope), obtains a token the MCP way and calls again.
func (c *client) runAuthorization(ctx context.Context) error {
	token := c.state.Tokens[c.tokenKey(c.URL)]
	r, err := c.call(ctx, bearer(token))
	if err != nil {
		return err
	}
	granted := ""
	refreshed := false
	for attempt := 0; attempt < 2; attempt++ {
		var scope string
		switch {
		case r.Status == http.StatusUnauthorized && token != "" && !refreshed:
			// A token that stopped working, and perhaps a refresh token
			// to replace it (authorization, "Refresh Tokens").
			refreshed = true
			tok, ok, err := c.refresh(ctx, r.Header)
			if err != nil {
				return err
			}
			if !ok {
				if c.broken(RefreshAssumed) {
					return fmt.Errorf("the token was refused, and there is no refresh token")
				}
				attempt--
				continue
			}
			token, granted = tok.access, tok.scope
			c.keep(tok)
			if r, err = c.call(ctx, bearer(token)); err != nil {
				return err
			}
			continue
		case r.Status == http.StatusUnauthorized:
		case r.Status == http.StatusForbidden && challengeParam(r.Header, "error") == "insufficient_scope":
			if c.broken(NoStepUp) {
				return fmt.Errorf("the server answered 403 insufficient_scope")
			}
			// Step-up (authorization, "Step-Up Authorization Flow"): the
			// challenge's scopes alongside those already granted.
			scope = union(granted, challengeParam(r.Header, "scope"))
			if c.broken(GrantedScopesDropped) {
				scope = challengeParam(r.Header, "scope")
			}
		default:
			return c.finishAuthorized(ctx, r, token)
		}
		tok, err := c.authorize(ctx, r.Header, scope)
		if err != nil {
			return err
		}
		token, granted = tok.access, tok.scope
		c.keep(tok)
		if r, err = c.call(ctx, bearer(token)); err != nil {
			return err
		}
	}
	return c.finishAuthorized(ctx, r, token)
}

// finishAuthorized judges the last reply, then makes what departure from
// token handling a Break asks for once the client holds a token.
func (c *client) finishAuthorized(ctx context.Context, r *mcpclient.Reply, token string) error {
	if err := c.finish(r); err != nil {
		return err
	}
	if token == "" {
		return nil
	}
	switch {
	case c.broken(RequestWithoutToken):
		_, err := c.mcp.Call(ctx, "", "ping", nil)
		return err
	case c.broken(TokenInQuery):
		_, err := mcpclient.New(c.URL+"?access_token="+url.QueryEscape(token), c.HTTP).Call(ctx, bearer(token), "tools/list", nil)
		return err
	case c.broken(ModernHeaderMissing):
		// A 2026-07-28 ping without its Mcp-Method header.
		return c.modernPing(ctx, token, "2026-07-28", "")
	case c.broken(VersionHeaderMismatch):
		// A 2026-07-28 ping whose header names an earlier revision.
		return c.modernPing(ctx, token, "2025-11-25", "ping")
	}
	return nil
}

// modernPing sends a 2026-07-28 ping with the MCP-Protocol-Version header
// version and the Mcp-Method header method ("" for none).
func (c *client) modernPing(ctx context.Context, token, version, method string) error {
	body := `{"jsonrpc":"2.0","id":99,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader([]byte(body)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", version)
	if method != "" {
		req.Header.Set("Mcp-Method", method)
	}
	req.Header.Set("Authorization", bearer(token))
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// obtained is a token, the scope it was granted for, the refresh token
// that came with it ("" for none), and its issuer.
type obtained struct{ access, scope, refresh, issuer string }

// keep stores a token for the server, and its refresh token for the
// server and the authorization server that issued it.
func (c *client) keep(tok obtained) {
	c.state.Tokens[c.tokenKey(c.URL)] = tok.access
	if tok.refresh != "" {
		c.state.Refresh[c.refreshKey(tok.issuer)] = tok.refresh
	}
}

// refreshKey is where a refresh token from issuer for the server is kept:
// it is good only at the authorization server that issued it.
func (c *client) refreshKey(issuer string) string { return c.tokenKey(c.URL) + " " + issuer }

// discovered is what discovery found for a server.
type discovered struct {
	prm              *oauthclient.Reply
	issuer, resource string
	md               *oauthclient.ServerMetadata
}

// discover finds the server's protected resource metadata and its
// authorization server's metadata, following the challenge.
func (c *client) discover(ctx context.Context, challenge http.Header) (discovered, error) {
	prm, err := c.protectedResource(ctx, challengeParam(challenge, "resource_metadata"))
	if err != nil {
		return discovered{}, err
	}
	servers, _ := prm.JSON["authorization_servers"].([]any)
	issuer, _ := firstString(servers)
	resource, _ := prm.String("resource")
	if issuer == "" || resource == "" {
		return discovered{}, fmt.Errorf("the protected resource metadata names no authorization server or resource")
	}
	// RFC 9728 3.3: metadata for another resource than the one requested
	// "MUST NOT be used".
	if resource != c.URL && !c.broken(ResourceNotChecked) {
		return discovered{}, fmt.Errorf("%w: the protected resource metadata is for %s, not %s", errRefused, resource, c.URL)
	}
	md, err := c.serverMetadata(ctx, issuer)
	if err != nil {
		return discovered{}, err
	}
	return discovered{prm: prm, issuer: issuer, resource: resource, md: md}, nil
}

// refresh redeems the refresh token kept for the server's authorization
// server, naming the resource as every token request must (authorization,
// "Resource Parameter Implementation"); ok is false when none is kept.
func (c *client) refresh(ctx context.Context, challenge http.Header) (tok obtained, ok bool, err error) {
	d, err := c.discover(ctx, challenge)
	if err != nil {
		return obtained{}, false, err
	}
	kept, clientID := c.state.Refresh[c.refreshKey(d.issuer)], c.state.Clients[c.clientKey(d.issuer)]
	if kept == "" || clientID == "" {
		return obtained{}, false, nil
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {kept}, "client_id": {clientID}, "resource": {d.resource}}
	if c.broken(RefreshWithoutResource) {
		form.Del("resource")
	}
	tok, err = c.redeem(ctx, d.md, form, "")
	return tok, err == nil, err
}

// redeem sends a token request and reads the answer.
func (c *client) redeem(ctx context.Context, md *oauthclient.ServerMetadata, form url.Values, scope string) (obtained, error) {
	if c.broken(SecretTwice) && c.ClientSecret != "" {
		form = maps.Clone(form)
		form.Set("client_secret", c.ClientSecret)
	}
	tok, err := oauthclient.Secret{Value: c.ClientSecret}.Token(ctx, c.HTTP, md.String("token_endpoint"), form)
	if err != nil {
		return obtained{}, err
	}
	access, _ := tok.String("access_token")
	if tok.Status != http.StatusOK || access == "" {
		return obtained{}, fmt.Errorf("the token endpoint answered %d", tok.Status)
	}
	if c.broken(UnknownMembersRefused) {
		for k := range tok.JSON {
			if !slices.Contains([]string{"access_token", "token_type", "expires_in", "refresh_token", "scope"}, k) {
				return obtained{}, fmt.Errorf("the token response has a member it does not know: %s", k)
			}
		}
	}
	granted, _ := tok.String("scope")
	if granted == "" {
		granted = scope
	}
	refresh, _ := tok.String("refresh_token")
	return obtained{access: access, scope: granted, refresh: refresh, issuer: md.Issuer}, nil
}

// authorize runs the authorization code flow for the server whose
// challenge is given; scope, when not "", is what to ask for (step-up).
func (c *client) authorize(ctx context.Context, challenge http.Header, scope string) (obtained, error) {
	d, err := c.discover(ctx, challenge)
	if err != nil {
		return obtained{}, err
	}
	prm, issuer, resource, md := d.prm, d.issuer, d.resource, d.md
	// Security considerations, "Authorization Code Protection": without
	// code_challenge_methods_supported the server does not support PKCE.
	if !slices.Contains(md.Strings("code_challenge_methods_supported"), "S256") && !c.broken(PKCENotChecked) {
		return obtained{}, fmt.Errorf("%w: the authorization server does not advertise PKCE with S256", errRefused)
	}
	if scope == "" {
		scope = challengeParam(challenge, "scope")
		if scope == "" || c.broken(MetadataScopes) {
			scope = strings.Join(stringsOf(prm.JSON["scopes_supported"]), " ")
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return obtained{}, fmt.Errorf("listen for the redirect: %w", err)
	}
	defer ln.Close()
	redirectURI := fmt.Sprintf("http://%s:%d/callback", c.loopbackName(), ln.Addr().(*net.TCPAddr).Port)
	clientID, err := c.clientID(ctx, md, issuer)
	if err != nil {
		return obtained{}, err
	}
	verifier, challengeS256 := c.pkce()
	req := oauthclient.AuthorizationRequest{Endpoint: md.String("authorization_endpoint"), ClientID: clientID, RedirectURI: redirectURI,
		Challenge: challengeS256, Method: "S256", State: random(), Resource: resource, Scope: scope}
	if c.broken(PlainPKCE) {
		req.Challenge, req.Method = verifier, "plain"
	}
	if c.broken(ResourceOmitted) {
		req.Resource = ""
	}
	if c.broken(StateOmitted) {
		req.State = ""
	}
	authURL, err := req.URL()
	if err != nil {
		return obtained{}, err
	}
	resp, err := c.browse(ctx, ln, authURL)
	if err != nil {
		return obtained{}, err
	}
	if err := c.checkResponse(resp, req.State, md); err != nil {
		return obtained{}, err
	}
	return c.redeem(ctx, md, oauthclient.CodeForm(resp.Get("code"), clientID, redirectURI, verifier, req.Resource), scope)
}

// pkce is a new PKCE pair for each authorization request (OAuth 2.1 7.5.2:
// "transaction-specific"); under ChallengeReused, the run's first pair.
func (c *client) pkce() (verifier, challenge string) {
	if c.broken(ChallengeReused) && c.firstPKCE[0] != "" {
		return c.firstPKCE[0], c.firstPKCE[1]
	}
	verifier, challenge = oauthclient.PKCE()
	if c.firstPKCE[0] == "" {
		c.firstPKCE = [2]string{verifier, challenge}
	}
	return verifier, challenge
}

// checkResponse applies the authorization response's checks before the
// code goes anywhere: the state, then RFC 9207's iss as MCP's
// "Authorization Response Validation" table gives it.
func (c *client) checkResponse(params url.Values, state string, md *oauthclient.ServerMetadata) error {
	if params.Get("state") != state && !c.broken(StateNotChecked) && !c.broken(StateOmitted) {
		return fmt.Errorf("%w: the authorization response's state is not the one sent", errRefused)
	}
	if !c.broken(IssNotChecked) {
		// Compared as they are: authorization 7.1 forbids case folding,
		// port elision, trailing-slash and percent-encoding normalization.
		iss, issuer, present := params.Get("iss"), md.String("issuer"), params.Has("iss")
		if c.broken(IssNormalized) {
			iss, issuer = strings.ToLower(strings.TrimSuffix(iss, "/")), strings.ToLower(strings.TrimSuffix(issuer, "/"))
		}
		switch {
		case present && iss != issuer:
			return fmt.Errorf("%w: the authorization response's iss %q is not the issuer %q", errRefused, iss, md.String("issuer"))
		case !present && md.Bool("authorization_response_iss_parameter_supported"):
			return fmt.Errorf("%w: the authorization response has no iss, which the server advertises", errRefused)
		}
	}
	if e := params.Get("error"); e != "" {
		return fmt.Errorf("the authorization server answered %s", e)
	}
	if params.Get("code") == "" {
		return fmt.Errorf("the authorization response has no code")
	}
	return nil
}

// protectedResource finds the protected resource metadata as MCP's
// "Protected Resource Metadata Discovery" says: at the challenge's
// resource_metadata when present, else at the well-known URI with the
// endpoint's path, then at the root one.
func (c *client) protectedResource(ctx context.Context, fromChallenge string) (*oauthclient.Reply, error) {
	var candidates []string
	if fromChallenge != "" && !c.broken(ChallengeMetadataIgnored) {
		candidates = append(candidates, fromChallenge)
	} else {
		uris, err := oauthclient.ResourceMetadataURIs(c.URL)
		if err != nil {
			return nil, fmt.Errorf("the MCP endpoint: %w", err)
		}
		for _, u := range uris {
			candidates = append(candidates, u.URL)
		}
		if c.broken(RootMetadataFirst) && len(candidates) == 2 {
			candidates[0], candidates[1] = candidates[1], candidates[0]
		}
	}
	oc := oauthclient.New("", oauthclient.Endpoints{}, c.HTTP)
	for _, cand := range candidates {
		r, err := oc.Get(ctx, cand)
		if err == nil && r.Status == http.StatusOK && r.JSON != nil {
			return r, nil
		}
	}
	return nil, fmt.Errorf("no protected resource metadata for %s", c.URL)
}

// serverMetadata finds the authorization server's metadata in the order
// MCP's "Authorization Server Metadata Discovery" gives, using the first
// document whose issuer is the one its URI was built from.
func (c *client) serverMetadata(ctx context.Context, issuer string) (*oauthclient.ServerMetadata, error) {
	uris, err := oauthclient.ServerMetadataURIs(issuer)
	if err != nil {
		return nil, err
	}
	if c.broken(OpenIDFirst) {
		slices.Reverse(uris)
	}
	oc := oauthclient.New("", oauthclient.Endpoints{}, c.HTTP)
	for _, u := range uris {
		r, err := oc.Get(ctx, u)
		if err != nil || r.Status != http.StatusOK || r.JSON == nil {
			continue
		}
		md := &oauthclient.ServerMetadata{Issuer: issuer, URL: u, Reply: r}
		if md.String("issuer") != issuer && !c.broken(IssuerNotChecked) {
			return nil, fmt.Errorf("%w: the metadata at %s names the issuer %q, not %q", errRefused, u, md.String("issuer"), issuer)
		}
		return md, nil
	}
	return nil, fmt.Errorf("no authorization server metadata for %s", issuer)
}

// loopbackName is the host of the client's redirect URIs: the loopback IP
// literal (OAuth 2.1 8.4.2: "the use of localhost is NOT RECOMMENDED"),
// unless LocalhostRedirect.
func (c *client) loopbackName() string {
	if c.broken(LocalhostRedirect) {
		return "localhost"
	}
	return "127.0.0.1"
}

// clientKey is where the client ID registered with issuer is kept: by
// issuer (registration, "Authorization Server Binding"), unless
// ClientIDByServer.
func (c *client) clientKey(issuer string) string {
	if c.broken(ClientIDByServer) {
		return c.URL
	}
	return issuer
}

// clientID is, in Client Registration's priority order, the client
// registered beforehand, the client ID metadata document where md says the
// authorization server supports them ("Advertising CIMD Support"), the
// client registered with issuer before, or a new one.
func (c *client) clientID(ctx context.Context, md *oauthclient.ServerMetadata, issuer string) (string, error) {
	if !c.broken(RegistersFirst) {
		if c.ClientID != "" {
			return c.ClientID, nil
		}
		if c.MetadataURL != "" && (md.Bool("client_id_metadata_document_supported") || c.broken(CIMDUnchecked)) {
			return c.MetadataURL, nil
		}
	}
	if id := c.state.Clients[c.clientKey(issuer)]; id != "" {
		return id, nil
	}
	// A loopback redirect URI without a port: the port is chosen per
	// request (OAuth 2.1 8.4.2).
	body := map[string]any{
		"client_name":                "fakeclient",
		"redirect_uris":              []string{"http://" + c.loopbackName() + "/callback"},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
		"application_type":           "native",
	}
	if c.broken(ApplicationTypeOmitted) {
		delete(body, "application_type")
	}
	if c.broken(RefreshGrantUnregistered) {
		body["grant_types"] = []string{"authorization_code"}
	}
	reg, err := oauthclient.New("", oauthclient.Endpoints{Register: md.String("registration_endpoint")}, c.HTTP).Register(ctx, body)
	if err != nil {
		return "", err
	}
	id, _ := reg.String("client_id")
	if id == "" {
		return "", fmt.Errorf("the registration answered %d without a client_id", reg.Status)
	}
	c.state.Clients[c.clientKey(issuer)] = id
	return id, nil
}

// browse sends the person to the authorization URL (through $BROWSER, and
// printed) and returns the parameters of the redirect that comes back.
func (c *client) browse(ctx context.Context, ln net.Listener, authURL string) (url.Values, error) {
	got := make(chan url.Values, 1)
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		_, _ = fmt.Fprintln(w, "Signed in; you may close this window.")
		select {
		case got <- r.URL.Query():
		default:
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		// The browser gets its answer before the listener goes.
		stop, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(stop)
	}()
	fmt.Fprintf(c.Out, "Open this URL to authorize: %s\n", authURL)
	if c.Browser != "" {
		if err := exec.CommandContext(ctx, "sh", "-c", c.Browser+` "$1"`, "browser", authURL).Run(); err != nil {
			fmt.Fprintf(c.Out, "the browser did not start: %v\n", err)
		}
	}
	select {
	case p := <-got:
		return p, nil
	case <-time.After(callbackWait):
		return nil, fmt.Errorf("no redirect came back within %s", callbackWait)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func firstString(list []any) (string, bool) {
	if len(list) == 0 {
		return "", false
	}
	s, ok := list[0].(string)
	return s, ok
}

func stringsOf(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// union is the scopes of a and b, each once, a's first.
func union(a, b string) string {
	out := strings.Fields(a)
	for _, s := range strings.Fields(b) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return strings.Join(out, " ")
}

func random() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
