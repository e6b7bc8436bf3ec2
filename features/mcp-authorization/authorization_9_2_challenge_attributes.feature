# MCP Authorization, sections 9.2 Token Handling and 6 Scope Selection
# Strategy (OAuth 2.1 section 5.3.1, RFC 6750 section 3).
@needs-authorization
Feature: authorization.9.2 Challenge attributes
  Every Bearer challenge names each of realm, scope, error,
  error_description and error_uri at most once: "The realm attribute MUST
  NOT appear more than once", "The scope attribute MUST NOT appear more than
  once", "The error, error_description, and error_uri attributes MUST NOT
  appear more than once" (OAuth 2.1 5.3.1, RFC 6750 3). It is judged on the
  challenges to a request without a token, with a malformed token and with a
  token the server never issued; whether a challenge is there at all is
  TOK-1's, TOK-2's and TOK-3's.

  @CHAL-4 @id:challenge-without-token-names-each-attribute-once
  Scenario: The challenge to a request without a token names each attribute at most once
    Given an anonymous caller
    When the caller sends the request that needs authorization
    Then the Bearer challenge names each RFC 6750 attribute at most once

  @CHAL-4 @id:challenge-to-refused-token-names-each-attribute-once
  Scenario Outline: The challenge to a refused token names each attribute at most once: <token>
    Given a caller presenting the Authorization header "<header>"
    When the caller sends the request that needs authorization
    Then the Bearer challenge names each RFC 6750 attribute at most once

    Examples:
      | token                           | header                                  |
      | a malformed token               | Bearer conform;token,4c1                |
      | a token the server never issued | Bearer conform-unknown-token-4c1d8e2b9a |
