package steps

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/conform-mcp/conform/harness/oauthclient"
)

// protection is whether the server implements MCP authorization, found out
// once per run. Authorization is optional for MCP implementations
// (authorization.1.2): a server that neither challenges the request that
// needs authorization nor serves protected resource metadata has opted out,
// and the pack does not apply to it; it is not failed for that.
type protection struct {
	once sync.Once
	why  string
}

func (p *protection) reason(ctx context.Context, st *State) string {
	p.once.Do(func() {
		az := &authzState{State: st}
		if p.why = az.probeProtection(ctx); p.why == "" {
			az.watchCredential(ctx)
		}
	})
	return p.why
}

// probeProtection says why the pack does not apply, or "" when it does: a
// server applies when it answers the request that needs authorization with
// a Bearer challenge, or serves protected resource metadata. A server that
// serves the request, or refuses it with another scheme (Basic, say), has
// not opted in to MCP authorization, which is optional and only SHOULD be
// followed over HTTP (authorization.1.2); AUTHZ-1 says so once.
func (st *authzState) probeProtection(ctx context.Context) string {
	r, err := st.MCP.Call(ctx, "", st.protected().Method, st.protectedParams(st.protected()))
	if err != nil {
		return "" // the scenarios report the server unreachable
	}
	if r.Status == http.StatusUnauthorized && hasBearer(r.Header.Values("WWW-Authenticate")) {
		return ""
	}
	if st.servesMetadata(ctx) {
		return ""
	}
	answer := fmt.Sprintf("HTTP %d", r.Status)
	if c := r.Header.Values("WWW-Authenticate"); len(c) > 0 {
		answer += " with WWW-Authenticate: " + strings.Join(c, ", ")
	}
	return fmt.Sprintf("not applicable: the server answered the request that needs authorization (mcp_authorization.protected_request, %s) "+
		"with %s and serves no protected resource metadata, so it does not implement MCP authorization, which is optional "+
		"(authorization.1.2); if it does, name a request it serves only with a token", st.protected().Method, answer)
}

// servesMetadata says whether a well-known URI of the endpoint serves
// protected resource metadata.
func (st *authzState) servesMetadata(ctx context.Context) bool {
	uris, err := oauthclient.ResourceMetadataURIs(st.endpoint())
	if err != nil {
		return false
	}
	for _, u := range uris {
		if d, err := st.fetchMetadata(ctx, u.URL); err == nil && d.status == http.StatusOK && d.object != nil {
			return true
		}
	}
	return false
}

// usesMCPAuthorization is AUTHZ-1: a server that refuses the request that
// needs authorization over HTTP "SHOULD conform to this specification"
// (authorization.1.2), which answers with a Bearer challenge (RFC 6750 3)
// and protected resource metadata (RFC 9728). A server that serves the
// request has no authorization to judge.
func (st *authzState) usesMCPAuthorization(ctx context.Context) error {
	r, err := st.MCP.Call(ctx, "", st.protected().Method, st.protectedParams(st.protected()))
	if err := st.took(r, err); err != nil {
		return err
	}
	if r.Status/100 == 2 {
		return st.skip(fmt.Sprintf("not applicable: the server serves the request that needs authorization without a token (HTTP %d), "+
			"so it does not implement MCP authorization, which is optional (authorization.1.2)", r.Status))
	}
	if hasBearer(r.Header.Values("WWW-Authenticate")) || st.servesMetadata(ctx) {
		return nil
	}
	return st.depart("authorization of an HTTP MCP server (authorization.1.2)", "a Bearer challenge and protected resource metadata, as MCP authorization has them",
		describe(r)+" with WWW-Authenticate "+fmt.Sprintf("%q", strings.Join(r.Header.Values("WWW-Authenticate"), ", "))+", and no protected resource metadata", r.Last())
}
