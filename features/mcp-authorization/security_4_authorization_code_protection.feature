# MCP Authorization Security Considerations, section 4 Authorization Code
# Protection (OAuth 2.1 sections 4.1.1, 4.1.2, 4.1.3 and 7.5.2; RFC 7636).
@needs-authorization
Feature: security.4 Authorization code protection
  The authorization server advertises PKCE with S256 and enforces it: an
  authorization request of a public client without code_challenge is
  refused, and a code is redeemed only with the code_verifier that matches its
  challenge, once. Every refusal is judged only after the same client, scope
  and redirect URI obtained a code and a token the valid way in the same run.

  @PKCE-1 @id:authorization-server-advertises-pkce-s256
  Scenario: The authorization server advertises PKCE with S256
    Given the authorization server's metadata, found the way a client finds it
    Then the authorization server metadata's code_challenge_methods_supported includes "S256"

  @PKCE-2 @needs-authorization-approval @id:authorization-request-without-code-challenge-refused
  Scenario: An authorization request without code_challenge is refused
    Given a public client registered with the authorization server
    # The control: the same client, scope and redirect URI, the valid way.
    And that the client's valid authorization request obtains a code and a token
    When the client sends an authorization request without code_challenge
    Then the authorization server refuses the authorization request

  @PKCE-3 @needs-authorization-approval @id:authorization-request-code-challenge-method-plain-server
  Scenario: An authorization request with code_challenge_method plain, which the server does not advertise, gets invalid_request
    Given a public client registered with the authorization server
    And that the authorization server metadata's code_challenge_methods_supported does not include "plain"
    # The control: the same client, scope and redirect URI, the valid way.
    And that the client's valid authorization request obtains a code and a token
    When the client sends an authorization request with code_challenge_method "plain"
    Then the authorization server answers with the error response "invalid_request"

  @PKCE-4 @needs-authorization-approval @id:redeeming-code-without-code-verifier-refused
  Scenario: Redeeming a code without its code_verifier is refused
    Given a public client registered with the authorization server
    # The control: the same client, scope and redirect URI, the valid way.
    And that the client's valid authorization request obtains a code and a token
    And the client obtained an authorization code for an S256 code_challenge
    When the client redeems the code without code_verifier
    Then the token endpoint refuses the request

  @PKCE-5 @needs-authorization-approval @id:redeeming-code-code-verifier-does-not-match
  Scenario: Redeeming a code with a code_verifier that does not match is refused with invalid_grant
    Given a public client registered with the authorization server
    # The control: the same client, scope and redirect URI, the valid way.
    And that the client's valid authorization request obtains a code and a token
    And the client obtained an authorization code for an S256 code_challenge
    When the client redeems the code with another code_verifier
    Then the token endpoint refuses the request with "invalid_grant"

  @CODE-1 @needs-authorization-approval @id:authorization-code-redeemed-once-refused-invalid-grant
  Scenario: An authorization code is redeemed once and refused with invalid_grant the second time
    Given a public client registered with the authorization server
    And the client obtained an authorization code for an S256 code_challenge
    And that the client redeemed the code for a token
    When the client redeems the code again
    Then the token endpoint refuses the request with "invalid_grant"

  @TOKRESP-1 @needs-authorization-approval @id:token-response-names-token-type-not-stored
  Scenario: A token response names its token_type and is not stored by caches
    Given a public client registered with the authorization server
    And the client obtained an authorization code for an S256 code_challenge
    And that the client redeemed the code for a token
    Then the token response carries token_type and Cache-Control no-store

  @CODE-2 @needs-authorization-approval @id:authorization-code-redeemed-only-client-was-issued
  Scenario: An authorization code is redeemed only by the client it was issued to
    Given a public client registered with the authorization server
    And a second public client registered with the authorization server
    # The control: the same client, scope and redirect URI, the valid way.
    And that the client's valid authorization request obtains a code and a token
    And the client obtained an authorization code for an S256 code_challenge
    When the client redeems the code as the second client
    Then the token endpoint refuses the request with "invalid_grant"
