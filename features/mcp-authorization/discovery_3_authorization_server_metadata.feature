# MCP Authorization Server Discovery, section 3 (RFC 8414 sections 2, 3 and 5;
# OpenID Connect Discovery 1.0). The authorization server is the first one
# the protected resource metadata names, or mcp_authorization.issuer; it may
# sit on another origin than the MCP server.
@needs-authorization
Feature: discovery.3 Authorization server metadata discovery
  A client tries the issuer's well-known URIs in the order the specification
  gives: for an issuer with a path, RFC 8414 with the path inserted, OpenID
  Connect Discovery with the path inserted, then appended; without a path,
  RFC 8414, then OpenID Connect Discovery. The first document it finds names
  the same issuer it was built from, and the endpoints of the code flow.

  @ASM-1 @ASM-3 @id:authorization-server-metadata-found-well-known-uris
  Scenario: The authorization server metadata is found at the well-known URIs in the specification's order
    Given the authorization server's metadata, found at the well-known URIs in the specification's order
    Then the authorization server metadata names an authorization_endpoint and a token_endpoint
    And the authorization server metadata names response_types_supported

  @ASM-2 @id:authorization-server-metadata-names-issuer-well-known
  Scenario: The authorization server metadata names the issuer its well-known URI was built from
    Given the authorization server's metadata, found the way a client finds it
    Then the authorization server metadata's issuer is the identifier its well-known URI was built from

  @TLS-2 @id:authorization-server-names-endpoints-https-hosts-not
  Scenario: The authorization server names its endpoints with https on hosts that are not loopback
    Given the authorization server's metadata, found the way a client finds it
    Then the authorization server metadata names every endpoint with https unless its host is loopback
