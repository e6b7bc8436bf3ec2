# MCP Authorization Security Considerations, section 2 Token Theft, for what
# the token endpoint issues: OAuth 2.1 sections 1.4.1, 3.2.3, 4.3, 4.3.1 and
# 4.3.3. A server that issues no refresh token leaves the refresh scenarios
# not run.
@needs-authorization
Feature: security.2 What the token endpoint issues
  A successful token response carries its access token, and names its scope
  when the token grants another than was asked. A refresh token the server
  never issued is refused; one rotated out and presented again revokes the
  grant; a new refresh token keeps the scope of the one it replaces.

  Background:
    Given a public client registered with the authorization server

  # OAuth 2.1 3.2.3: "access_token: REQUIRED."
  @TOKRESP-2 @needs-authorization-approval @id:successful-token-response-carries-access-token
  Scenario: A successful token response carries access_token
    Given the client obtained an authorization code for an S256 code_challenge
    When the client redeems the code with its code_verifier
    Then the token response, if a success, carries an access_token

  # OAuth 2.1 1.4.1: "If the issued access token scope is different from the
  # one requested by the client, the authorization server MUST include the
  # scope response parameter".
  @TOKRESP-3 @needs-authorization-approval @id:token-response-names-scope-when-different
  Scenario: A token response that leaves scope out issues the scope requested
    Given the client obtained an authorization code for an S256 code_challenge
    And that the client redeemed the code for a token
    Then the token response names its scope, if the token grants another than was asked

  # OAuth 2.1 4.3.1: the server MUST "validate the refresh token"; 4.3:
  # refresh tokens "cannot be generated, modified, or guessed".
  @REFRESH-7 @needs-authorization-approval @id:refresh-token-never-issued-refused
  Scenario: A refresh token with one character changed is refused with invalid_grant
    Given the client obtained an authorization code for an S256 code_challenge
    And that the client redeemed the code for a refresh token
    # The control: the client's own refresh token is served.
    And that the client's valid refresh obtains a token
    When the client refreshes with the refresh token, one character changed
    Then the token endpoint refuses the request with "invalid_grant"

  # OAuth 2.1 4.3.1, refresh token rotation: the server "will revoke the
  # active refresh token as well as the access authorization grant associated
  # with it" (derived: a description of the method, judged as a SHOULD).
  @REFRESH-6 @needs-authorization-approval @id:rotated-refresh-token-replay-revokes-grant
  Scenario: A refresh token replayed after rotation revokes the newest one
    Given the client obtained an authorization code for an S256 code_challenge
    And that the client redeemed the code for a refresh token
    And that the client refreshed with the refresh token once
    And the client refreshes with the same refresh token again
    # The control: the replay itself was refused (REFRESH-2).
    And that the token endpoint refuses the request
    When the client refreshes with the refresh token the first refresh returned
    Then the token endpoint refuses the request

  # OAuth 2.1 4.3.3: "If a new refresh token is issued, the refresh token
  # scope MUST be identical to that of the refresh token included by the
  # client in the request."
  @REFRESH-8 @needs-authorization-approval @id:new-refresh-token-keeps-scope
  Scenario: A new refresh token keeps the scope of the one it replaces
    Given the client obtained an authorization code for an S256 code_challenge
    And that the client redeemed the code for a refresh token
    # The control: the client's own refresh, which says its scope.
    And that the client's valid refresh obtains a token
    And the client refreshes asking for part of the scope granted
    And that the token endpoint issues an access token
    When the client refreshes with the refresh token
    Then the token response's scope is the whole scope of the refresh token replaced
