# MCP Authorization, section 9.2 Token Handling (with 11 Error Handling;
# OAuth 2.1 sections 5.1, 5.2 and 5.3, RFC 6750 section 3, RFC 8707 section 2).
@needs-authorization
Feature: authorization.9.2 Token handling
  The server validates every access token as an OAuth 2.1 resource server and
  accepts only tokens issued for it. A missing, malformed, unknown, altered,
  expired or foreign token answers 401 with a Bearer challenge; a malformed
  one may instead answer 400 (RFC 6750 3.1, invalid_request), with the
  challenge too. A token in the URI query is ignored. The request sent is
  the one the profile names as needing authorization; every refusal of a
  token is judged only after the same request with the server's own token
  was served.

  @TOK-1 @id:request-needs-authorization-sent-without-token-answers
  Scenario: A request that needs authorization, sent without a token, answers 401 with a Bearer challenge
    Given an anonymous caller
    When the caller sends the request that needs authorization
    Then the HTTP status is 401
    And the "WWW-Authenticate" header is a Bearer challenge

  @TOK-2 @id:malformed-token-refused
  Scenario Outline: A malformed token is refused: <token>
    Given a caller presenting the Authorization header "<header>"
    When the caller sends the request that needs authorization
    Then the server refuses the request as malformed: 400 or 401, with a Bearer challenge

    Examples:
      | token                                       | header                   |
      | an empty bearer token                       | Bearer                   |
      | a token with characters RFC 6750 forbids     | Bearer conform;token,4c1 |

  @TOK-3 @needs-credential @id:token-server-never-issued-answers-401-bearer
  Scenario: A token the server never issued answers 401 with a Bearer challenge
    Given that the server serves the request that needs authorization with the target's credential
    And a caller presenting the Authorization header "Bearer conform-unknown-token-4c1d8e2b9a"
    When the caller sends the request that needs authorization
    Then the HTTP status is 401
    And the "WWW-Authenticate" header is a Bearer challenge

  @TOK-8 @needs-credential @id:server-s-own-token-one-character-changed
  Scenario: The server's own token with one character changed answers 401
    Given that the server serves the request that needs authorization with the target's credential
    And a caller with the target's credential, one character changed
    When the caller sends the request that needs authorization
    Then the HTTP status is 401
    And the "WWW-Authenticate" header is a Bearer challenge

  @TOK-4 @needs-expired-token @needs-credential @id:expired-token-answers-401
  Scenario: An expired token answers 401
    Given that the server serves the request that needs authorization with the target's credential
    And a caller with an expired token
    When the caller sends the request that needs authorization
    Then the HTTP status is 401
    And the "WWW-Authenticate" header is a Bearer challenge

  @TOK-5 @needs-other-resource-token @needs-credential @id:token-issued-another-resource-answers-401
  Scenario: A token issued for another resource answers 401
    Given that the server serves the request that needs authorization with the target's credential
    And a caller with a token issued for another resource
    When the caller sends the request that needs authorization
    Then the HTTP status is 401
    And the "WWW-Authenticate" header is a Bearer challenge

  @TOK-7 @needs-credential @id:token-uri-query-string-ignored
  Scenario: A token in the URI query string is ignored
    Given that the server serves the request that needs authorization with the target's credential
    And that the server refuses the request that needs authorization without a token
    And an anonymous caller
    When the caller sends the request that needs authorization with the target's credential in the URI query string
    Then the HTTP status is 401

  @TOK-6 @needs-credential @id:valid-token-issued-server-served
  Scenario: A valid token issued for the server is served
    Given a caller with the target's credential
    When the caller sends the request that needs authorization
    Then the server serves the request: HTTP 2xx

  @CHAL-1 @id:challenge-request-without-token-names-scope-needs
  Scenario: The challenge to a request without a token names the scope it needs
    Given an anonymous caller
    When the caller sends the request that needs authorization
    # A premise here: TOK-1 judges the status itself.
    Given that the HTTP status is 401
    Then the Bearer challenge names a scope

  @CHAL-3 @id:challenge-request-without-token-carries-no-error
  Scenario: The challenge to a request without a token carries no error code
    Given an anonymous caller
    When the caller sends the request that needs authorization
    # A premise here: TOK-1 judges the status itself.
    Given that the HTTP status is 401
    Then the Bearer challenge carries no error

  @CHAL-2 @id:challenge-token-server-never-issued-says-invalid
  Scenario: The challenge to a token the server never issued says invalid_token
    Given a caller presenting the Authorization header "Bearer conform-unknown-token-4c1d8e2b9a"
    When the caller sends the request that needs authorization
    # A premise here: TOK-3 judges the status itself.
    Given that the HTTP status is 401
    Then the Bearer challenge's error is "invalid_token"
