# MCP Authorization, section 3 (the authorization server's metadata, RFC
# 8414), and RFC 7009 Token Revocation, which binds an authorization server
# that advertises revocation_endpoint. One that does not has these scenarios
# not applicable.
@needs-authorization
Feature: authorization.3 Token revocation
  A refresh token the client revokes at the advertised revocation_endpoint
  is refused at the next refresh, whatever token_type_hint came with it, and
  the access tokens of its grant stop being served, each judged after the
  client's own refresh, or the MCP server's service of the access token,
  was shown in the same run.

  Background:
    Given the authorization server's metadata, found the way a client finds it
    And the authorization server advertises a revocation_endpoint
    And a public client registered with the authorization server

  # RFC 7009 2: "Implementations MUST support the revocation of refresh
  # tokens".
  @REVOKE-1 @needs-authorization-approval @id:revoked-refresh-token-refused
  Scenario: A revoked refresh token is refused at the next refresh
    Given the client obtained an authorization code for an S256 code_challenge
    And that the client redeemed the code for a refresh token
    And that the client's valid refresh obtains a token
    When the client revokes its refresh token
    And the client refreshes with the refresh token
    Then the token endpoint refuses the request with "invalid_grant"

  # RFC 7009 2.1: "If the server is unable to locate the token using the
  # given hint, it MUST extend its search across all of its supported token
  # types."
  @REVOKE-2 @needs-authorization-approval @id:refresh-token-revoked-under-wrong-hint-refused
  Scenario: A refresh token revoked under the token_type_hint access_token is refused at the next refresh
    Given the client obtained an authorization code for an S256 code_challenge
    And that the client redeemed the code for a refresh token
    And that the client's valid refresh obtains a token
    When the client revokes its refresh token under the token_type_hint access_token
    And the client refreshes with the refresh token
    Then the token endpoint refuses the request with "invalid_grant"

  # RFC 7009 2.1: "If the particular token is a refresh token and the
  # authorization server supports the revocation of access tokens, then the
  # authorization server SHOULD also invalidate all access tokens based on
  # the same authorization grant".
  @REVOKE-3 @needs-authorization-approval @id:revoked-refresh-token-grant-access-token-refused
  Scenario: Revoking a refresh token stops the access token of its grant
    Given the client obtained an authorization code for an S256 code_challenge
    And that the client redeemed the code for a refresh token
    And that the server serves the request that needs authorization with the access token the client obtained
    When the client revokes its refresh token
    And a caller with the access token the client obtained
    And the caller sends the request that needs authorization
    Then the HTTP status is 401
