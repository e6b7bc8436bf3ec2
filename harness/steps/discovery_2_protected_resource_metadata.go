package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/wire"
)

// document is a fetched metadata document and where it came from.
type document struct {
	url         string
	status      int
	contentType string
	// object is the body decoded as a JSON object; nil when it is not one.
	object map[string]any
	body   []byte
	ex     wire.Exchange
	// builtFrom is the resource identifier a well-known URI was built from,
	// or "" when the document was found through the challenge.
	builtFrom string
	// rootFor is the MCP endpoint whose root well-known URI this is: the MCP
	// extension of RFC 9728 3 lets its resource be that endpoint.
	rootFor string
	// tried says what a client saw before it found the document.
	tried []string
}

// fetchMetadata GETs a metadata document the way a client would.
func (st *authzState) fetchMetadata(ctx context.Context, u string) (*document, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("build request to %s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := st.Target.HTTP.Do(req)
	if err != nil {
		if lost := st.stopped(err); lost != nil && strings.HasPrefix(u, st.Target.Profile.Target) {
			return nil, lost
		}
		return nil, st.depart("an HTTP response from "+u, "a response", err.Error(), wire.Record(req, nil, nil, nil, err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument))
	if err != nil {
		return nil, st.depart("an HTTP response from "+u, "a whole body", err.Error())
	}
	d := &document{url: u, status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: body, ex: wire.Record(req, nil, resp, body, nil)}
	var obj map[string]any
	if json.Unmarshal(body, &obj) == nil {
		d.object = obj
	}
	return d, nil
}

// discoverMetadata finds the protected resource metadata as discovery.2
// tells a client to: the challenge's resource_metadata when the 401 names
// one, else the well-known URIs in order. Finding none is a departure from
// PRM-2; a document found but broken is judged by the steps that follow.
func (st *authzState) discoverMetadata(ctx context.Context) error {
	r, err := st.MCP.Call(ctx, "", st.protected().Method, st.protectedParams(st.protected()))
	if err := st.took(r, err); err != nil {
		return err
	}
	var tried []string
	if r.Status == http.StatusUnauthorized {
		if u := wire.ChallengeParam(r.Header.Values("WWW-Authenticate"), "Bearer", "resource_metadata"); u != "" {
			d, err := st.fetchMetadata(ctx, u)
			if err != nil {
				return err
			}
			st.authz.meta = d
			return nil
		}
		tried = append(tried, "the 401 challenge names no resource_metadata")
	} else {
		tried = append(tried, fmt.Sprintf("the request that needs authorization answered HTTP %d, not 401", r.Status))
	}
	d, err := st.firstWellKnown(ctx, tried)
	if err != nil {
		return err
	}
	if d.status != http.StatusOK {
		return st.depart("protected resource metadata discovery (discovery.2)",
			"metadata through the 401 challenge's resource_metadata or at a well-known URI",
			strings.Join(d.tried, "; "), append(r.Exchanges, d.ex)...)
	}
	st.authz.meta = d
	return nil
}

// metadataIfAny is discoverMetadata for a scenario that judges only what
// the metadata says: finding none is PRM-2's departure, not its own.
func (st *authzState) metadataIfAny(ctx context.Context) error {
	err := st.discoverMetadata(ctx)
	var d *outcome.Departure
	if errors.As(err, &d) {
		return st.skip("no protected resource metadata to judge (PRM-2 checks discovery): " + d.Actual)
	}
	return err
}

// firstWellKnown tries the well-known URIs in order and returns the first
// that answers 200, or the last tried when none does.
func (st *authzState) firstWellKnown(ctx context.Context, tried []string) (*document, error) {
	uris, err := oauthclient.ResourceMetadataURIs(st.endpoint())
	if err != nil {
		return nil, fmt.Errorf("MCP endpoint: %w", err)
	}
	var last *document
	for _, c := range uris {
		d, err := st.fetchMetadata(ctx, c.URL)
		if err != nil {
			return nil, err
		}
		d.builtFrom = c.BuiltFrom
		if c.Root {
			d.rootFor = st.endpoint()
		}
		tried = append(tried, fmt.Sprintf("%s answered HTTP %d", c.URL, d.status))
		d.tried = tried
		last = d
		if d.status == http.StatusOK {
			return d, nil
		}
	}
	return last, nil
}

func (st *authzState) fetchChallengedMetadata(ctx context.Context) error {
	h, err := st.needLast()
	if err != nil {
		return err
	}
	u := wire.ChallengeParam(h.header.Values("WWW-Authenticate"), "Bearer", "resource_metadata")
	if u == "" {
		return st.skip("the 401 challenge names no resource_metadata, so a client finds the metadata at the well-known URIs (PRM-2 and PRM-4 check those)")
	}
	d, err := st.fetchMetadata(ctx, u)
	if err != nil {
		return err
	}
	st.authz.meta = d
	return nil
}

func (st *authzState) tryWellKnown(ctx context.Context) error {
	d, err := st.firstWellKnown(ctx, nil)
	if err != nil {
		return err
	}
	if d.status != http.StatusOK {
		return st.skip("no well-known URI serves the metadata (" + strings.Join(d.tried, "; ") +
			"); a server may offer it through the 401 challenge alone, which PRM-2 and PRM-5 check")
	}
	st.authz.meta = d
	return nil
}

func (st *authzState) needMetadata() (*document, error) {
	if st.authz.meta == nil {
		return nil, fmt.Errorf("no metadata fetched yet: the scenario must find it before judging it")
	}
	return st.authz.meta, nil
}

func (st *authzState) metadataIsObject() error {
	d, err := st.needMetadata()
	if err != nil {
		return err
	}
	// RFC 9728 3.2: "A successful response MUST use the 200 OK HTTP status
	// code and return a JSON object using the application/json content type".
	mt, _, _ := mime.ParseMediaType(d.contentType)
	if d.status != http.StatusOK || d.object == nil || mt != "application/json" {
		got := fmt.Sprintf("HTTP %d, Content-Type %q", d.status, d.contentType)
		if d.object == nil {
			got += " with body " + wire.Quote(string(d.body))
		}
		return st.depart("protected resource metadata at "+d.url+" (RFC 9728 3.2)", "HTTP 200 with a JSON object, Content-Type application/json", got, d.ex)
	}
	return nil
}

// resource returns the metadata's resource member, judging its presence.
func (st *authzState) resource() (string, *document, error) {
	d, err := st.needMetadata()
	if err != nil {
		return "", nil, err
	}
	if err := st.metadataIsObject(); err != nil {
		return "", nil, err
	}
	r, ok := d.object["resource"].(string)
	if !ok {
		return "", nil, st.depart("resource (RFC 9728 2, 3.3)", "a resource string", wire.JSONText(d.object["resource"]), d.ex)
	}
	return r, d, nil
}

func (st *authzState) resourceIsEndpoint() error {
	r, d, err := st.resource()
	if err != nil {
		return err
	}
	if r != st.endpoint() {
		return st.depart("resource of the metadata the challenge names (RFC 9728 3.3)",
			fmt.Sprintf("%q, the URL the request went to", st.endpoint()), fmt.Sprintf("%q", r), d.ex)
	}
	return nil
}

func (st *authzState) resourceIsBuiltFrom() error {
	r, d, err := st.resource()
	if err != nil {
		return err
	}
	want := []string{d.builtFrom}
	if d.rootFor != "" {
		// RFC 9728 3.1 drops a terminating slash before inserting the
		// well-known string, and the MCP extension lets the root document
		// describe the MCP endpoint.
		want = append(want, d.builtFrom+"/", d.rootFor)
	}
	for _, w := range want {
		if r == w {
			return nil
		}
	}
	return st.depart("resource of the metadata at "+d.url+" (RFC 9728 3.3)", "one of "+quoteAll(want), fmt.Sprintf("%q", r), d.ex)
}

// emptyArrays names the members of a metadata document that are arrays with
// no element, in order: "Claims with zero elements MUST be omitted from the
// response" (RFC 9728 3.2, RFC 8414 3.2). Elements are an array's (RFC 8259
// section 5); an empty string or object is not judged.
func emptyArrays(doc map[string]any) []string {
	var empty []string
	for k, v := range doc {
		if a, ok := v.([]any); ok && len(a) == 0 {
			empty = append(empty, k)
		}
	}
	slices.Sort(empty)
	return empty
}

// metadataNoEmptyArray is PRM-6 (RFC 9728 3.2).
func (st *authzState) metadataNoEmptyArray() error {
	d, err := st.needMetadata()
	if err != nil {
		return err
	}
	if empty := emptyArrays(d.object); len(empty) > 0 {
		return st.depart("protected resource metadata at "+d.url+" (RFC 9728 3.2: \"Claims with zero elements MUST be omitted\")",
			"no claim with zero elements", strings.Join(empty, ", ")+" an empty array", d.ex)
	}
	return nil
}

// metadataResourceNoFragment is PRM-7's first half: the resource is a URL
// that "has no fragment component" (RFC 9728 2).
func (st *authzState) metadataResourceNoFragment() error {
	d, err := st.needMetadata()
	if err != nil {
		return err
	}
	if r, ok := d.object["resource"].(string); ok && strings.Contains(r, "#") {
		return st.depart("protected resource metadata at "+d.url+" (RFC 9728 2)", "a resource without a fragment", fmt.Sprintf("resource %s has a fragment", r), d.ex)
	}
	return nil
}

// metadataURLs is PRM-7's second half (RFC 9728 2): the resource "uses the
// https scheme", and of jwks_uri "This URL MUST use the https scheme". As
// TLS-2 does, plain http on a loopback host is noted, not judged: test
// deployments live there (TLS-1).
func (st *authzState) metadataURLs() error {
	d, err := st.needMetadata()
	if err != nil {
		return err
	}
	bad := st.plainHTTP([]string{"resource", "jwks_uri"}, func(k string) string { s, _ := d.object[k].(string); return s })
	if len(bad) > 0 {
		return st.depart("protected resource metadata at "+d.url+" (RFC 9728 2)", "https for resource and jwks_uri", strings.Join(bad, "; "), d.ex)
	}
	return nil
}

// plainHTTP returns, as "member URL", the members whose value is a plain
// http URL on a host that is not loopback, and notes those on a loopback
// host, where test deployments live and the rule is not judged (TLS-1).
func (st *authzState) plainHTTP(members []string, value func(string) string) []string {
	var remote, loopback []string
	for _, k := range members {
		u, err := url.Parse(value(k))
		if err != nil || u.Scheme != "http" {
			continue
		}
		if oauthclient.LoopbackHost(u.Hostname()) {
			loopback = append(loopback, k)
		} else {
			remote = append(remote, k+" "+u.String())
		}
	}
	if len(loopback) > 0 {
		st.Notes.Observe(st.pickleID, "plain http on a loopback host, where the rule is not judged: "+strings.Join(loopback, ", "))
	}
	return remote
}

// metadataListsScopes is PRM-8 (RFC 9728 2: "scopes_supported:
// RECOMMENDED"): the member is there, as a JSON array. An empty one is
// PRM-6's.
func (st *authzState) metadataListsScopes() error {
	d, err := st.needMetadata()
	if err != nil {
		return err
	}
	if _, ok := d.object["scopes_supported"].([]any); !ok {
		return st.depart("protected resource metadata at "+d.url+" (RFC 9728 2: \"scopes_supported: RECOMMENDED\")",
			"scopes_supported, a JSON array", memberText(d.object, "scopes_supported"), d.ex)
	}
	return nil
}

// memberText says what a document's member is: its JSON, or that it is
// absent.
func memberText(doc map[string]any, k string) string {
	v, ok := doc[k]
	if !ok {
		return k + " absent"
	}
	return k + " " + wire.JSONText(v)
}
