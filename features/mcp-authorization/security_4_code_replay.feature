# MCP Authorization Security Considerations, section 4 Authorization Code
# Protection, for a replayed code: OAuth 2.1 sections 4.1.3 and 7.5.3.
@needs-authorization
Feature: security.4 A replayed authorization code
  When a code is redeemed a second time, the tokens its first redemption
  issued are revoked; a replay that carries an invalid code_verifier revokes
  nothing. Each is judged only after the first redemption's access token was
  served by the MCP server.

  Background:
    Given a public client registered with the authorization server
    And the client obtained an authorization code for an S256 code_challenge
    And that the client redeemed the code for a token
    And a caller with the access token the code was redeemed for
    # The control: the first redemption's token is served.
    And the server serves the caller the request that needs authorization

  # OAuth 2.1 4.1.3: the server "SHOULD revoke (when possible) all access
  # tokens and refresh tokens previously issued based on that authorization
  # code".
  @CODE-3 @needs-authorization-approval @id:code-replay-revokes-first-tokens
  Scenario: After a code's second redemption, the access token of its first is refused
    # The control of a refusal at the MCP server: a token it never issued
    # is refused there.
    Given the server refuses the request that needs authorization with a token it never issued
    When the client redeems the code again
    # The replay itself was refused (CODE-1): a code redeemed twice is
    # another departure.
    And that the token endpoint refuses the request
    And the caller sends the request that needs authorization
    Then the HTTP status is 401

  # OAuth 2.1 7.5.3: "The authorization server SHOULD NOT revoke any issued
  # tokens when receiving a replayed authorization code that contains invalid
  # parameters".
  @CODE-4 @needs-authorization-approval @id:invalid-code-replay-revokes-nothing
  Scenario: A replayed code with a wrong code_verifier does not revoke the tokens of its first redemption
    When the client redeems the code with another code_verifier
    And the caller sends the request that needs authorization
    Then the server serves the request: HTTP 2xx
