# MCP Authorization, section 8, Resource Parameter Implementation (RFC
# 8707), and Security Considerations, section 1, the client's side.
Feature: authorization.8 The resource parameter the client sends
  "MCP clients MUST implement Resource Indicators for OAuth 2.0 as defined
  in RFC 8707" and the resource parameter "MUST be included in both
  authorization requests and token requests" and "MUST identify the MCP
  server that the client intends to use the token with". The protected
  resource metadata's resource is that server's canonical URI.

  @CLI-7 @id:client-sends-resource-of-metadata
  Scenario: The client names the protected resource metadata's resource in its authorization and token requests
    Given a scripted server that behaves as the specification says
    When the client is run
    Then every authorization and token request named the protected resource metadata's resource
