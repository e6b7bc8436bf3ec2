# MCP Authorization, section 11 Error Handling (OAuth 2.1 section 5.3.2,
# RFC 6750 section 3.1).
@needs-authorization
Feature: authorization.11 Error handling
  A Bearer challenge's error code goes with its status: "invalid_request:
  The resource server SHOULD respond with the HTTP 400 (Bad Request) status
  code", invalid_token with 401, insufficient_scope with 403 (RFC 6750 3.1,
  OAuth 2.1 5.3.2). A challenge without one of these codes is not judged
  here (CHAL-2 and CHAL-3 say when a code belongs in it).

  @CHAL-5 @needs-credential @id:refused-token-error-code-agrees-with-status
  Scenario Outline: A refused token's error code agrees with the status: <token>
    Given that the server serves the request that needs authorization with the target's credential
    And a caller presenting the Authorization header "<header>"
    When the caller sends the request that needs authorization
    Then the Bearer challenge's error code agrees with the HTTP status

    Examples:
      | token                           | header                                  |
      | a malformed token               | Bearer conform;token,4c1                |
      | a token the server never issued | Bearer conform-unknown-token-4c1d8e2b9a |

  @CHAL-5 @needs-limited-token @id:insufficient-scope-error-code-agrees-with-status
  Scenario: The error code of a refusal for scope agrees with the status
    Given a caller with a token that lacks the scope the scoped request needs
    And that the server takes that token as valid: it serves the request that needs authorization, or refuses it 403 for insufficient scope
    When the caller sends the request that needs more scope
    Then the Bearer challenge's error code agrees with the HTTP status
