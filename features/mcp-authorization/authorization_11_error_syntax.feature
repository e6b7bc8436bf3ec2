# MCP Authorization, section 11 (Error Handling) and section 3 (the
# authorization server implements OAuth 2.1): the characters of the error
# attributes in a challenge (OAuth 2.1 5.3.1, RFC 6750 3), an authorization
# error response (4.1.2.1) and a token error response (3.2.4).
@needs-authorization
Feature: authorization.11 The syntax of error attributes
  Error codes and descriptions use only the characters OAuth 2.1 allows
  (%x20-21 / %x23-5B / %x5D-7E: printable ASCII without the double quote
  and the backslash), and error_uri the same without the space. An answer
  that carries no error has nothing to judge.

  # OAuth 2.1 5.3.1 and RFC 6750 3: "Values for the "error" and
  # "error_description" attributes ... MUST NOT include characters outside
  # the set %x20-21 / %x23-5B / %x5D-7E."
  @ERRSYN-1 @id:challenge-error-attributes-allowed-characters
  Scenario: The challenge to a token the server never issued uses only the characters OAuth 2.1 allows in its error attributes
    Given a caller presenting the Authorization header "Bearer conform-unknown-token-4c1d8e2b9a"
    When the caller sends the request that needs authorization
    # A premise here: TOK-3 judges the status itself.
    Given that the HTTP status is 401
    Then the Bearer challenge's error, error_description and error_uri use only the characters OAuth 2.1 allows

  # OAuth 2.1 3.2.4: "Values for the error_description parameter MUST NOT
  # include characters outside the set %x20-21 / %x23-5B / %x5D-7E."
  @ERRSYN-1 @needs-authorization-approval @id:token-error-response-allowed-characters
  Scenario: A token error response uses only the characters OAuth 2.1 allows
    Given a public client registered with the authorization server
    # The control: the same client, scope and redirect URI, the valid way.
    And that the client's valid authorization request obtains a code and a token
    And the client obtained an authorization code for an S256 code_challenge
    When the client redeems the code with another code_verifier
    Then the token response's error, error_description and error_uri use only the characters OAuth 2.1 allows

  # OAuth 2.1 4.1.2.1: the same sets for the authorization error response.
  @ERRSYN-1 @needs-authorization-approval @id:authorization-error-response-allowed-characters
  Scenario: An authorization error response uses only the characters OAuth 2.1 allows
    Given a public client registered with the authorization server
    # The control: the same client, scope and redirect URI, the valid way.
    And that the client's valid authorization request obtains a code and a token
    When the client sends an authorization request the server must refuse: without code_challenge, else with a response_type it does not support
    Then the authorization response's error, error_description and error_uri use only the characters OAuth 2.1 allows
