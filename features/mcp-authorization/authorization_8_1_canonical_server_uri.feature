# MCP Authorization, section 8.1 Canonical Server URI (RFC 8707).
@needs-authorization
Feature: authorization.8.1 Canonical server URI
  The canonical URI of an MCP server is written in lowercase, but the
  authorization server accepts it with an uppercase scheme and host.

  @CANON-1 @needs-authorization-approval @id:resource-uppercase-scheme-host-accepted
  Scenario: The MCP server's URI with an uppercase scheme and host is accepted as the resource
    Given a public client registered with the authorization server
    # The control: the same request naming the canonical URI, the valid way.
    And that the client's valid authorization request obtains a code and a token
    # "While the canonical form uses lowercase scheme and host components,
    # implementations SHOULD accept uppercase scheme and host components for
    # robustness and interoperability" (authorization 8.1).
    When the client sends its authorization request naming the MCP server with an uppercase scheme and host
    Then the authorization server answers with a code, taking the uppercase scheme and host
