// Command mcpserver is an MCP server built the way the Go SDK
// (github.com/modelcontextprotocol/go-sdk) documents it: its Streamable HTTP
// handler behind auth.RequireBearerToken, with RFC 9728 protected resource
// metadata served by auth.ProtectedResourceMetadataHandler. It is the server
// the mcp-authorization pack judges in scripts/realworld/go-sdk-*.sh; the
// authorization server is whichever OpenID provider -issuer names, and
// tokens are checked by RFC 7662 introspection at that provider.
package main

import (
	"context"
	"flag"
	"log"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

func main() {
	resource := flag.String("resource", "http://127.0.0.1:13100/mcp", "the MCP endpoint's URL, which is also its resource identifier (RFC 9728 1.2)")
	issuer := flag.String("issuer", "", "the authorization server's issuer identifier")
	introspection := flag.String("introspection", "", "the authorization server's RFC 7662 introspection endpoint")
	clientID := flag.String("client-id", "", "the client this server authenticates as at the introspection endpoint")
	clientSecret := flag.String("client-secret", "", "that client's secret (client_secret_basic)")
	audience := flag.String("audience", "", "an aud value every token must carry (empty: not checked)")
	scopes := flag.String("scopes-supported", "", "space-separated scopes_supported of the metadata")
	flag.Parse()

	u, err := url.Parse(*resource)
	if err != nil || u.Host == "" {
		log.Fatalf("-resource %q is not an absolute URL", *resource)
	}
	// RFC 9728 3.1: the well-known URI of a resource with a path is the
	// well-known prefix followed by that path.
	metadataPath := "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.Path, "/")
	metadataURL := u.Scheme + "://" + u.Host + metadataPath

	server := mcp.NewServer(&mcp.Implementation{Name: "conform-realworld-gosdk", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "whoami", Description: "says which subject the token was issued to"}, whoami)
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)

	verifier := &introspector{endpoint: *introspection, clientID: *clientID, clientSecret: *clientSecret, audience: *audience}
	protect := auth.RequireBearerToken(verifier.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: metadataURL})

	mux := http.NewServeMux()
	mux.Handle(metadataPath, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:             *resource,
		AuthorizationServers: []string{*issuer},
		ScopesSupported:      strings.Fields(*scopes),
	}))
	mux.Handle(u.Path, protect(handler))
	log.Printf("MCP endpoint %s, metadata %s", *resource, metadataURL)
	log.Fatal(http.ListenAndServe(u.Host, mux))
}

type whoamiArgs struct{}

func whoami(ctx context.Context, _ *mcp.CallToolRequest, _ whoamiArgs) (*mcp.CallToolResult, any, error) {
	subject := "unknown"
	if info := auth.TokenInfoFromContext(ctx); info != nil && info.UserID != "" {
		subject = info.UserID
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: subject}}}, nil, nil
}
