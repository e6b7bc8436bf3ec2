package oauth

import (
	"net/http"

	"github.com/conform-mcp/conform/impl/role"
)

// protectedResource is the RFC 9728 section 3.2 document for the MCP
// endpoint, the target of the 401 challenge's resource_metadata (source
// section 7.2). Its content is PRODUCT.md section 6's.
type protectedResource struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	// ScopesSupported are the scopes the gate asks for in its 403
	// insufficient_scope challenge (package role).
	ScopesSupported []string `json:"scopes_supported"`
}

// authorizationServer is the RFC 8414 section 2 document naming every
// endpoint of this server.
type authorizationServer struct {
	Issuer                      string `json:"issuer"`
	RegistrationEndpoint        string `json:"registration_endpoint"`
	DeviceAuthorizationEndpoint string `json:"device_authorization_endpoint"`
	AuthorizationEndpoint       string `json:"authorization_endpoint"`
	TokenEndpoint               string `json:"token_endpoint"`
	// RFC 8414 section 2 names the RFC 7009 endpoint and how a client
	// authenticates there: as a public client, by client_id alone.
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	RevocationEndpointAuthMethods     []string `json:"revocation_endpoint_auth_methods_supported"`
	ScopesSupported                   []string `json:"scopes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	// RFC 9207: the authorization response carries iss.
	AuthorizationResponseIssParameterSupported bool `json:"authorization_response_iss_parameter_supported"`
	// A client_id may be the URL of a client metadata document (cimd.go).
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported"`
}

// handleProtectedResource is GET /.well-known/oauth-protected-resource.
func (s *Server) handleProtectedResource(w http.ResponseWriter, r *http.Request) {
	base := s.base.Of(r)
	writeMetadata(w, protectedResource{Resource: base + "/mcp", AuthorizationServers: []string{base},
		ScopesSupported: role.Scopes})
}

// handleAuthorizationServer is GET /.well-known/oauth-authorization-server.
func (s *Server) handleAuthorizationServer(w http.ResponseWriter, r *http.Request) {
	base := s.base.Of(r)
	writeMetadata(w, authorizationServer{
		Issuer:                                     base,
		RegistrationEndpoint:                       base + "/oauth/register",
		DeviceAuthorizationEndpoint:                base + "/oauth/device_authorization",
		AuthorizationEndpoint:                      base + "/oauth/authorize",
		TokenEndpoint:                              base + "/oauth/token",
		RevocationEndpoint:                         base + "/oauth/revoke",
		RevocationEndpointAuthMethods:              []string{"none"},
		ScopesSupported:                            role.Scopes,
		GrantTypesSupported:                        supportedGrants,
		ResponseTypesSupported:                     []string{"code"},
		CodeChallengeMethodsSupported:              []string{"S256"},
		TokenEndpointAuthMethodsSupported:          []string{"none"},
		AuthorizationResponseIssParameterSupported: true,
		ClientIDMetadataDocumentSupported:          true,
	})
}

// writeMetadata answers a public metadata document. Browser-based clients
// fetch these across origins, so any origin may read them.
func writeMetadata(w http.ResponseWriter, v any) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	writeJSON(w, http.StatusOK, v)
}
