package oauthclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// resourceMetadataPath is the well-known URI suffix of protected resource
// metadata (RFC 9728 section 3). It is written here only: every other
// part of the harness builds the URIs through ResourceMetadataURIs.
const resourceMetadataPath = "/.well-known/oauth-protected-resource"

// ResourceMetadataURI is one URI at which a client looks for a protected
// resource's metadata, and the resource identifier it was built from.
type ResourceMetadataURI struct {
	URL string
	// BuiltFrom is the resource identifier the URI was built from (RFC 9728
	// section 3.1): the MCP endpoint for the path-suffixed form, its origin
	// for the root one.
	BuiltFrom string
	// Root is true for the root form, whose resource the MCP extension of
	// RFC 9728 section 3 lets be the MCP endpoint as well.
	Root bool
}

// ResourceMetadataURIs returns the well-known URIs of the protected
// resource metadata of the resource at endpoint, in the order MCP's
// Authorization Server Discovery ("Protected Resource Metadata Discovery
// Requirements") tells a client to try them: the endpoint's path inserted
// after the well-known prefix (RFC 9728 section 3.1), then the root. An
// endpoint at the root has only the root one.
func ResourceMetadataURIs(endpoint string) ([]ResourceMetadataURI, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("resource %q is not an absolute URL", endpoint)
	}
	origin := u.Scheme + "://" + u.Host
	root := ResourceMetadataURI{URL: origin + resourceMetadataPath, BuiltFrom: origin, Root: true}
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		return []ResourceMetadataURI{{URL: root.URL + p, BuiltFrom: endpoint}, root}, nil
	}
	return []ResourceMetadataURI{root}, nil
}

// FindIssuer returns the authorization server a client picks for the
// resource at endpoint, and the scopes its metadata lists: the first of
// authorization_servers in the protected resource metadata (RFC 9728
// section 7.6 leaves the choice to the client). It looks for the metadata
// as MCP's Authorization Server Discovery says: at challengeMetadata (the
// 401 challenge's resource_metadata) when not "", else at the well-known
// URIs in ResourceMetadataURIs' order.
func FindIssuer(ctx context.Context, hc *http.Client, endpoint, challengeMetadata string) (string, []string, error) {
	var candidates []string
	if challengeMetadata != "" {
		// "use the resource metadata URL from the parsed WWW-Authenticate
		// headers when present; otherwise, they MUST fall back to
		// constructing and requesting the well-known URIs".
		candidates = []string{challengeMetadata}
	} else {
		uris, err := ResourceMetadataURIs(endpoint)
		if err != nil {
			return "", nil, fmt.Errorf("MCP endpoint: %w", err)
		}
		for _, u := range uris {
			candidates = append(candidates, u.URL)
		}
	}
	oc := New("", Endpoints{}, hc)
	for _, c := range candidates {
		r, err := oc.Get(ctx, c)
		if err != nil || r.Status != http.StatusOK || r.JSON == nil {
			continue
		}
		servers, _ := r.JSON["authorization_servers"].([]any)
		if len(servers) > 0 {
			if s, ok := servers[0].(string); ok && s != "" {
				return s, stringList(r.JSON["scopes_supported"]), nil
			}
		}
	}
	return "", nil, fmt.Errorf("no protected resource metadata naming an authorization server for %s", endpoint)
}

// stringList is the strings of a JSON array member; nil for anything else.
func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
