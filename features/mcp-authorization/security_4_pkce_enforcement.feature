# MCP Authorization Security Considerations, section 4 Authorization Code
# Protection: what the authorization server does with PKCE (OAuth 2.1
# sections 4.1.2, 4.1.3 and 7.5.2; RFC 7636 sections 4.4 and 4.4.1).
@needs-authorization
Feature: security.4 PKCE enforced by the authorization server
  The authorization server keeps the code_challenge to itself, and refuses a
  public client's request without code_challenge with invalid_request; a
  confidential client's it refuses too, or the code it issued for it. Every refusal is judged only
  after the same client, scope and redirect URI obtained a code and a token
  the valid way in the same run.

  @PKCE-7 @needs-authorization-approval @id:authorization-response-does-not-reveal-code-challenge
  Scenario: The authorization response does not carry the code_challenge in a form a client can extract
    Given a public client registered with the authorization server
    And the client obtained an authorization code for an S256 code_challenge
    # "the server MUST NOT include the code_challenge value in a response
    # parameter in a form that entities other than the AS can extract"
    # (OAuth 2.1 4.1.2; RFC 7636 4.4).
    Then the authorization response does not carry the code_challenge

  @PKCE-8 @needs-authorization-approval @id:public-client-request-without-code-challenge-invalid-request
  Scenario: A public client's authorization request without code_challenge gets invalid_request
    Given a public client registered with the authorization server
    # The control: the same client, scope and redirect URI, the valid way.
    And that the client's valid authorization request obtains a code and a token
    # "If the server requires PKCE by OAuth public clients and the client
    # does not send the code_challenge in the request, the authorization
    # endpoint MUST return the authorization error response with the error
    # value set to invalid_request" (RFC 7636 4.4.1).
    When the client sends an authorization request without code_challenge
    Then the authorization server answers a public client with the error response "invalid_request", if it requires code_challenge

  @PKCE-6 @needs-authorization-approval @id:confidential-client-request-without-code-challenge-refused
  Scenario: A confidential client's authorization request without code_challenge is refused, or its code is
    Given a confidential client registered with the authorization server
    # The control: the same client, scope and redirect URI, the valid way.
    And that the client's valid authorization request obtains a code and a token
    # "using and enforcing code_challenge and code_verifier is still
    # RECOMMENDED" (OAuth 2.1 7.5.2) where a confidential client may be let
    # off; a code issued anyway is refused at the token endpoint: "If there
    # was no code_challenge in the authorization request associated with the
    # authorization code in the token request, the authorization server MUST
    # reject the token request" (4.1.3).
    When the client sends its authorization request without code_challenge
    Then the authorization server refuses the authorization request, or its code when redeemed without code_verifier
