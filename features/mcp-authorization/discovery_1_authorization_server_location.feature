# MCP Authorization Server Discovery, section 1 (RFC 9728 section 2).
@needs-authorization
Feature: discovery.1 Authorization server location
  The protected resource metadata of an MCP server names the authorization
  servers that issue its tokens: authorization_servers holds at least one.

  @PRM-1 @id:protected-resource-metadata-names-least-one-authorization
  Scenario: The protected resource metadata names at least one authorization server
    Given the protected resource metadata, found the way a client finds it
    Then the metadata's authorization_servers holds at least one absolute URL
