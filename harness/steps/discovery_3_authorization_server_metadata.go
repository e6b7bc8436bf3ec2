package steps

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
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
	plain := st.plainHTTP([]string{"issuer", "authorization_endpoint", "token_endpoint", "registration_endpoint", "jwks_uri", "introspection_endpoint", "revocation_endpoint"}, md.String)
	if len(plain) > 0 {
		return st.depart("authorization server metadata at "+md.URL+" (security.3, OAuth 2.1 1.5)", "https for every endpoint on a host that is not loopback",
			strings.Join(plain, ", "), md.Reply.Exchange)
	}
	return nil
}

// asServedAsJSON is ASM-5: "A successful response MUST use the 200 OK HTTP
// status code and return a JSON object using the "application/json"
// content type" (RFC 8414 3.2). Discovery took the first 200 with a JSON
// object, whatever its type, so the type is what is left to judge.
func (st *authzState) asServedAsJSON() error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	ct := md.Reply.Header.Get("Content-Type")
	if mt, _, _ := mime.ParseMediaType(ct); md.Reply.Status != http.StatusOK || md.Reply.JSON == nil || mt != "application/json" {
		return st.depart("authorization server metadata at "+md.URL+" (RFC 8414 3.2)", "HTTP 200 with a JSON object, Content-Type application/json",
			fmt.Sprintf("HTTP %d, Content-Type %q", md.Reply.Status, ct), md.Reply.Exchange)
	}
	return nil
}

// asNoEmptyArray is ASM-6 (RFC 8414 3.2: "Claims with zero elements MUST be
// omitted from the response").
func (st *authzState) asNoEmptyArray() error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	if empty := emptyArrays(md.Reply.JSON); len(empty) > 0 {
		return st.depart("authorization server metadata at "+md.URL+" (RFC 8414 3.2: \"Claims with zero elements MUST be omitted\")",
			"no claim with zero elements", strings.Join(empty, ", ")+" an empty array", md.Reply.Exchange)
	}
	return nil
}

// asNoFragment is ASM-4: the issuer "has no query or fragment components"
// (RFC 8414 2, RFC 9207 2), and "The authorization endpoint URL MUST NOT
// include a fragment component", nor the token endpoint's (OAuth 2.1 3.1,
// 3.2). A query is allowed in the endpoints, not in the issuer.
func (st *authzState) asNoFragment() error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	var bad []string
	if iss := md.String("issuer"); strings.ContainsAny(iss, "?#") {
		bad = append(bad, fmt.Sprintf("issuer %s has a query or fragment", iss))
	}
	for _, k := range []string{"authorization_endpoint", "token_endpoint"} {
		if u := md.String(k); strings.Contains(u, "#") {
			bad = append(bad, fmt.Sprintf("%s %s has a fragment", k, u))
		}
	}
	if len(bad) > 0 {
		return st.depart("authorization server metadata at "+md.URL+" (RFC 8414 2, OAuth 2.1 3.1, 3.2)",
			"an issuer without query or fragment, endpoints without a fragment", strings.Join(bad, "; "), md.Reply.Exchange)
	}
	return nil
}

// asListsScopes is ASM-7 (RFC 8414 2: "scopes_supported: RECOMMENDED"): the
// member is there, as a JSON array. An empty one is ASM-6's.
func (st *authzState) asListsScopes() error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	if _, ok := md.Reply.JSON["scopes_supported"].([]any); !ok {
		return st.depart("authorization server metadata at "+md.URL+" (RFC 8414 2: \"scopes_supported: RECOMMENDED\")",
			"scopes_supported, a JSON array", memberText(md.Reply.JSON, "scopes_supported"), md.Reply.Exchange)
	}
	return nil
}

// asSigningAlgs is ASM-8, RFC 8414 2 of
// token_endpoint_auth_signing_alg_values_supported: "This metadata entry
// MUST be present if either of these authentication methods are specified
// in the "token_endpoint_auth_methods_supported" entry" (private_key_jwt,
// client_secret_jwt), and "The value "none" MUST NOT be used".
func (st *authzState) asSigningAlgs() error {
	md, err := st.needAS()
	if err != nil {
		return err
	}
	const algs = "token_endpoint_auth_signing_alg_values_supported"
	var bad []string
	if slices.Contains(md.Strings(algs), "none") {
		bad = append(bad, algs+" lists none")
	}
	// RFC 8414 2 has the member "MUST be present" when a JWT method is
	// offered; OpenID Connect Discovery 1.0 (section 3), which MCP lets a
	// server offer instead (discovery.3), makes it OPTIONAL, keeping only
	// "The value none MUST NOT be used". A document found at its URI is
	// held to that.
	if _, present := md.Reply.JSON[algs]; !present && !md.OpenID() {
		for _, m := range md.Strings("token_endpoint_auth_methods_supported") {
			if m == "private_key_jwt" || m == "client_secret_jwt" {
				bad = append(bad, "token_endpoint_auth_methods_supported lists "+m+" and "+algs+" is absent")
				break
			}
		}
	}
	if len(bad) > 0 {
		return st.depart("authorization server metadata at "+md.URL+" (RFC 8414 2)",
			algs+" without none, present when a JWT method is offered", strings.Join(bad, "; "), md.Reply.Exchange)
	}
	return nil
}
