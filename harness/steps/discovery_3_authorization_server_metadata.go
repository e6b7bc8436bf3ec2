package steps

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/wire"
)

// issuerKey is the profile key that names the authorization server.
const issuerKey = "mcp_authorization.issuer"

// discoverAS finds the authorization server as a client would: the profile's
// issuer, else the first the protected resource metadata names; then its
// metadata in the order discovery.3 gives. Finding none is a departure from
// ASM-1, the only scenario that judges discovery: the others go through
// foundAS or usableAS. An issuer from the profile that cannot be reached is
// a mistake of the profile, so the scenario is not run, naming the key.
func (st *authzState) discoverAS(ctx context.Context) error {
	if st.authz.as.md != nil {
		return nil
	}
	issuer := st.Target.Profile.MCPAuthorization.Issuer
	fromProfile := issuer != ""
	if !fromProfile {
		r, err := st.MCP.Call(ctx, "", st.protected().Method, st.protectedParams(st.protected()))
		if err := st.took(r, err); err != nil {
			return err
		}
		if issuer, _, err = oauthclient.FollowChallenge(ctx, st.Target.HTTP, st.endpoint(), r.Status, r.Header.Values("WWW-Authenticate")); err != nil {
			return st.skip(err.Error() + " (PRM-1 and PRM-2 check that); set " + issuerKey + " to check an authorization server anyway")
		}
	}
	md, tried, err := oauthclient.DiscoverServer(ctx, st.Target.HTTP, issuer)
	if err != nil {
		if fromProfile {
			return st.skip(fmt.Sprintf("the authorization server %s names could not be reached: %v; check %s", issuerKey, err, issuerKey))
		}
		return st.depart("authorization server metadata of "+issuer, "an HTTP response", err.Error())
	}
	if md == nil {
		var seen []string
		var exs []wire.Exchange
		for _, r := range tried {
			seen = append(seen, fmt.Sprintf("%s answered HTTP %d", r.Exchange.URL, r.Status))
			exs = append(exs, r.Exchange)
		}
		where := "a well-known URI of " + issuer
		if fromProfile {
			where += " (" + issuerKey + ")"
		}
		return st.depart("authorization server metadata (discovery.3)", "RFC 8414 or OpenID Connect Discovery metadata at "+where,
			strings.Join(seen, "; "), exs...)
	}
	st.authz.as.md = md
	return nil
}

// foundAS is the authorization server metadata a scenario other than ASM-1
// judges: when there is none, the scenario is not run, since ASM-1 is what
// fails for it; when the issuer came from the profile, the reason names the
// key, which may be what is wrong.
func (st *authzState) foundAS(ctx context.Context) error {
	err := st.discoverAS(ctx)
	var d *outcome.Departure
	if !errors.As(err, &d) {
		return err
	}
	reason := "no authorization server metadata to judge (ASM-1 checks discovery): " + d.Actual
	if st.Target.Profile.MCPAuthorization.Issuer != "" {
		reason += "; the issuer is " + issuerKey + "'s, check it"
	}
	return st.skip(reason)
}

// usableAS is the authorization server a flow can be run against: found,
// and naming the endpoints of the code flow. When it is not, the scenario is
// not run: ASM-1 and ASM-3 are what fail for it.
func (st *authzState) usableAS(ctx context.Context) error {
	if err := st.foundAS(ctx); err != nil {
		return err
	}
	md := st.authz.as.md
	for _, k := range []string{"authorization_endpoint", "token_endpoint"} {
		if u, err := url.Parse(md.String(k)); err != nil || u.Scheme == "" || u.Host == "" {
			return st.skip("the authorization server metadata names no absolute " + k + " (ASM-3 checks that)")
		}
	}
	return nil
}

func (st *authzState) needAS() (*oauthclient.ServerMetadata, error) {
	if st.authz.as.md == nil {
		return nil, fmt.Errorf("no authorization server metadata yet: the scenario must find it first")
	}
	return st.authz.as.md, nil
}

func (st *authzState) asNamesEndpoints() error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	var missing []string
	for _, k := range []string{"authorization_endpoint", "token_endpoint"} {
		if u, err := url.Parse(md.String(k)); err != nil || u.Scheme == "" || u.Host == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return st.depart("authorization server metadata at "+md.URL+" (RFC 8414 2)", "an absolute "+strings.Join(missing, " and "), "none", md.Reply.Exchange)
	}
	return nil
}

func (st *authzState) asIssuerMatches() error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	if got := md.String("issuer"); got != md.Issuer {
		return st.depart("issuer of the metadata at "+md.URL+" (RFC 8414 3.3)", fmt.Sprintf("%q", md.Issuer), fmt.Sprintf("%q", got), md.Reply.Exchange)
	}
	return nil
}

// asResponseTypes: response_types_supported is REQUIRED in authorization
// server metadata (RFC 8414 section 2).
func (st *authzState) asResponseTypes() error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	if len(md.Strings("response_types_supported")) == 0 {
		return st.depart("authorization server metadata at "+md.URL+" (RFC 8414 2)", "response_types_supported, a list of the response types it supports",
			wire.JSONText(md.Reply.JSON["response_types_supported"]), md.Reply.Exchange)
	}
	return nil
}

// asHTTPS is the part of "All authorization server endpoints MUST be served
// over HTTPS" (security.3) a client sees without TLS: no http URL for the
// issuer or an endpoint on a host that is not loopback. Loopback hosts are
// where test deployments live; what they use is noted, not judged.
func (st *authzState) asHTTPS() error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	var plain, loopback []string
	for _, k := range []string{"issuer", "authorization_endpoint", "token_endpoint", "registration_endpoint", "jwks_uri", "introspection_endpoint", "revocation_endpoint"} {
		u, err := url.Parse(md.String(k))
		if err != nil || u.Scheme != "http" {
			continue
		}
		if oauthclient.LoopbackHost(u.Hostname()) {
			loopback = append(loopback, k)
		} else {
			plain = append(plain, fmt.Sprintf("%s %s", k, u))
		}
	}
	if len(plain) > 0 {
		return st.depart("authorization server metadata at "+md.URL+" (security.3, OAuth 2.1 1.5)", "https for every endpoint on a host that is not loopback",
			strings.Join(plain, ", "), md.Reply.Exchange)
	}
	if len(loopback) > 0 {
		st.Notes.Observe(st.pickleID, "plain http on a loopback host, where the rule is not judged: "+strings.Join(loopback, ", "))
	}
	return nil
}
