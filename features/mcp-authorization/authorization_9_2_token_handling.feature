# MCP Authorization, section 9.2 Token Handling (with 11 Error Handling;
# OAuth 2.1 sections 5.2 and 5.3, RFC 6750 section 3, RFC 8707 section 2).
@needs-authorization
Feature: authorization.9.2 Token handling
  The server validates every access token as an OAuth 2.1 resource server and
  accepts only tokens issued for it. A missing, malformed, unknown, expired
  or foreign token answers 401 with a Bearer challenge; a malformed one may
  instead answer 400 (RFC 6750 3.1, invalid_request). The request sent is
  the one the profile names as needing authorization.

  @TOK-1
  Scenario: A request that needs authorization, sent without a token, answers 401 with a Bearer challenge
    Given an anonymous caller
    When the caller sends the request that needs authorization
    Then the HTTP status is 401
    And the "WWW-Authenticate" header is a Bearer challenge

  @TOK-2
  Scenario Outline: A malformed token is refused: <token>
    Given a caller presenting the Authorization header "<header>"
    When the caller sends the request that needs authorization
    Then the request is refused as malformed: 400, or 401 with a Bearer challenge

    Examples:
      | token                                       | header                   |
      | an empty bearer token                       | Bearer                   |
      | a token with characters RFC 6750 forbids     | Bearer conform;token,4c1 |

  @TOK-3
  Scenario: A token the server never issued answers 401 with a Bearer challenge
    Given a caller presenting the Authorization header "Bearer conform-unknown-token-4c1d8e2b9a"
    When the caller sends the request that needs authorization
    Then the HTTP status is 401
    And the "WWW-Authenticate" header is a Bearer challenge

  @TOK-4 @needs-expired-token
  Scenario: An expired token answers 401
    Given a caller with an expired token
    When the caller sends the request that needs authorization
    Then the HTTP status is 401

  @TOK-5 @needs-other-resource-token
  Scenario: A token issued for another resource answers 401
    Given a caller with a token issued for another resource
    When the caller sends the request that needs authorization
    Then the HTTP status is 401

  @TOK-6 @needs-credential
  Scenario: A valid token issued for the server is served
    Given a caller with the target's credential
    When the caller sends the request that needs authorization
    Then the HTTP status is neither 401 nor 403
