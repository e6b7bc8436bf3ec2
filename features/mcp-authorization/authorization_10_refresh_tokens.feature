# MCP Authorization, section 10 Refresh Tokens.
@needs-authorization
Feature: authorization.10 Refresh tokens
  Refresh tokens are the authorization server's business, not a resource
  requirement: the server does not ask for offline_access, neither in its
  challenge's scope nor in the metadata's scopes_supported.

  @SCOPE-2 @id:neither-challenge-nor-metadata-asks-offline-access
  Scenario: Neither the challenge nor the metadata asks for offline_access
    Given the protected resource metadata, found the way a client finds it, if any
    Then the metadata's scopes_supported does not name "offline_access"
    Given an anonymous caller
    When the caller sends the request that needs authorization
    Then the Bearer challenge's scope does not name "offline_access"
