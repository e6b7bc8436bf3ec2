package oauthclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// The well-known URI suffixes of authorization server metadata, written
// here only: RFC 8414 section 3.1's default, and OpenID Connect
// Discovery 1.0's, which RFC 8414 section 5 keeps compatible.
const (
	serverMetadataPath = "/.well-known/oauth-authorization-server"
	openIDPath         = "/.well-known/openid-configuration"
)

// ServerMetadataURIs returns the authorization server metadata URIs of an
// issuer in the order MCP's Authorization Server Discovery ("Authorization
// Server Metadata Discovery") tells a client to try them: with a path,
// RFC 8414 path insertion, then OpenID Connect Discovery path insertion,
// then OpenID Connect path appending; without one, RFC 8414, then OpenID
// Connect Discovery.
func ServerMetadataURIs(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("issuer %q is not an absolute URL", issuer)
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	if path == "" {
		return []string{origin + serverMetadataPath, origin + openIDPath}, nil
	}
	return []string{
		origin + serverMetadataPath + path,
		origin + openIDPath + path,
		origin + path + openIDPath,
	}, nil
}

// ServerMetadata is an authorization server's metadata document as found
// (RFC 8414 section 2).
type ServerMetadata struct {
	// Issuer is the identifier the document's URI was built from.
	Issuer string
	// URL is where the document was found.
	URL string
	// Reply is the answer that carried it; Reply.JSON is the document.
	Reply *Reply
}

// OpenID reports whether the document was found at an OpenID Connect
// Discovery 1.0 URI, so that Discovery's definitions of its members hold
// rather than RFC 8414's where they differ.
func (m *ServerMetadata) OpenID() bool {
	u, err := url.Parse(m.URL)
	return err == nil && strings.Contains(u.Path, openIDPath)
}

// String returns a string member of the document, or "".
func (m *ServerMetadata) String(key string) string {
	s, _ := m.Reply.JSON[key].(string)
	return s
}

// Strings returns a member that is an array of strings.
func (m *ServerMetadata) Strings(key string) []string {
	return stringList(m.Reply.JSON[key])
}

// Bool returns a boolean member, false when absent.
func (m *ServerMetadata) Bool(key string) bool {
	b, _ := m.Reply.JSON[key].(bool)
	return b
}

// DiscoverServer tries the issuer's metadata URIs in ServerMetadataURIs'
// order and returns the first that answers 200 with a JSON object, or nil
// with every answer in tried. It does not compare the document's issuer
// with the one asked for (RFC 8414 section 3.3): the scenarios judge that,
// and need the document found to judge it.
func DiscoverServer(ctx context.Context, hc *http.Client, issuer string) (*ServerMetadata, []*Reply, error) {
	uris, err := ServerMetadataURIs(issuer)
	if err != nil {
		return nil, nil, err
	}
	oc := New("", Endpoints{}, hc)
	var tried []*Reply
	for _, u := range uris {
		r, err := oc.Get(ctx, u)
		if err != nil {
			return nil, tried, fmt.Errorf("GET %s: %w", u, err)
		}
		if r.Status == http.StatusOK && r.JSON != nil {
			return &ServerMetadata{Issuer: issuer, URL: u, Reply: r}, tried, nil
		}
		tried = append(tried, r)
	}
	return nil, tried, nil
}
