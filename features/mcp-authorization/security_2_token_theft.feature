# MCP Authorization Security Considerations, section 2 Token Theft (OAuth 2.1
# section 4.3.1). The MCP specification lets the authorization server decide
# whether to issue refresh tokens at all; when it issues none, these
# scenarios are not run.
@needs-authorization
Feature: security.2 Refresh token rotation
  For a public client the authorization server rotates refresh tokens: a
  refresh answers with a new refresh token, and the one used is refused if
  presented again. A refresh token is bound to its client, its scope and its
  resource: another client's refresh, or one asking for more, is refused
  (or, for scope and resource, answered with no more than was granted), each
  judged after the same client's own refresh, made the same way, was served.

  Background:
    Given a public client registered with the authorization server

  @REFRESH-1 @needs-authorization-approval @id:refresh-answers-new-refresh-token
  Scenario: A refresh answers with a new refresh token
    Given the client obtained an authorization code for an S256 code_challenge
    And that the client redeemed the code for a refresh token
    When the client refreshes with the refresh token
    Then the token endpoint issues an access token
    And the token response carries a refresh token other than the one presented

  @REFRESH-2 @needs-authorization-approval @id:refresh-token-used-once-refused-when-presented
  Scenario: A refresh token used once is refused when presented again
    Given the client obtained an authorization code for an S256 code_challenge
    And that the client redeemed the code for a refresh token
    And that the client refreshed with the refresh token once
    When the client refreshes with the same refresh token again
    Then the token endpoint refuses the request

  @REFRESH-3 @needs-authorization-approval @id:refresh-token-used-only-client-was-issued
  Scenario: A refresh token is used only by the client it was issued to
    Given a second public client registered with the authorization server
    And the client obtained an authorization code for an S256 code_challenge
    And that the client redeemed the code for a refresh token
    And that the client's valid refresh obtains a token
    When the client refreshes with the refresh token as the second client
    Then the token endpoint refuses the request with "invalid_grant"

  @TOKLIFE-1 @needs-authorization-approval @id:token-response-says-how-long-access-token
  Scenario: A token response says how long the access token lives
    Given the client obtained an authorization code for an S256 code_challenge
    And that the client redeemed the code for a token
    Then the token response says how long the access token lives

  @REFRESH-4 @needs-authorization-approval @id:refresh-cannot-widen-scope-granted
  Scenario: A refresh cannot widen the scope granted
    # The refresh asks for an advertised scope the grant lacks: one no
    # server knows every server drops, which proves nothing.
    Given the client obtained an authorization code for an S256 code_challenge and less than every scope advertised
    And that the client redeemed the code for a refresh token
    And that the client's valid refresh, asking for the scope granted, obtains a token
    When the client refreshes asking for a scope it was never granted
    Then the token endpoint refuses the refresh, or issues no scope it was never granted

  @REFRESH-5 @needs-authorization-approval @id:refresh-cannot-obtain-token-resource-never-consented
  Scenario: A refresh cannot obtain a token for a resource never consented
    Given the client obtained an authorization code for an S256 code_challenge
    And that the client redeemed the code for a refresh token
    And that the client's valid refresh obtains a token
    When the client refreshes naming another resource than the MCP server
    Then the token endpoint refuses the refresh, or issues a token that is not for that resource
