# MCP Authorization, section 1.2 Protocol Requirements.
Feature: authorization.1.2 Protocol requirements
  Authorization is optional for MCP implementations; one that supports it
  over an HTTP-based transport should conform to this specification. A
  server that refuses the request that needs authorization with another
  scheme, and serves no protected resource metadata, has its own
  authorization: the rest of this pack does not apply to it, and this
  SHOULD says so once. Unlike the rest of the pack, this runs whatever the
  server does.

  @AUTHZ-1 @id:server-requires-authorization-over-http-uses-mcp
  Scenario: A server that requires authorization over HTTP uses MCP authorization
    Then the server refuses the request that needs authorization, if at all, as MCP authorization does
