# MCP Authorization Server Discovery, section 3 (RFC 8414 sections 3.1, 3.3
# and 5; OpenID Connect Discovery 1.0), the client's side. The scripted
# authorization server sits on another origin, has an issuer with a path
# and serves only OpenID Connect Discovery with path insertion, so a client
# that follows the order asks for RFC 8414's document first and finds the
# second.
Feature: discovery.3 Authorization server metadata discovery by the client
  "For issuer URLs with path components, clients MUST try endpoints in the
  following priority order" (RFC 8414 path insertion, OpenID Connect path
  insertion, OpenID Connect path appending). "If they differ, the client
  MUST NOT use the metadata."

  @CLI-3 @id:client-tries-authorization-server-metadata-in-order
  Scenario: The client tries the authorization server metadata well-known URIs in the listed order
    Given a scripted server that behaves as the specification says
    When the client is run
    Then the client requested the authorization server metadata at the well-known URIs in the specification's order
    And the client made an authorized call

  @CLI-4 @id:client-refuses-metadata-of-another-issuer
  Scenario: The client does not use authorization server metadata that names another issuer
    Given the client has completed the flow against a compliant server in this run
    And a scripted server that serves authorization server metadata naming another issuer
    When the client is run
    Then the client stopped before using any endpoint the authorization server metadata names
