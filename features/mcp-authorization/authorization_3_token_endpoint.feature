# MCP Authorization, section 3 (the authorization server implements OAuth
# 2.1), for its token endpoint: OAuth 2.1 sections 2.2, 2.4.1, 3.2, 3.2.2 and
# 3.2.4. Each request is judged only after the same client's valid request
# was served in the same run.
@needs-authorization
Feature: authorization.3 The token endpoint
  The token endpoint ignores parameters it does not know and treats a
  parameter sent without a value as omitted. A confidential client may send
  its credentials in the request body; without them, or with wrong ones, it is
  refused, and a failed HTTP Basic authentication answers 401 with a Basic
  challenge.

  Background:
    Given a public client registered with the authorization server

  # OAuth 2.1 3.2: "The authorization server MUST ignore unrecognized request
  # parameters sent to the token endpoint."
  @TOKEP-1 @needs-authorization-approval @id:token-request-unrecognized-parameter-ignored
  Scenario: A code redemption with an unrecognized parameter added is served
    # The control: the same client's valid flow, redeemed without it.
    Given that the client's valid authorization request obtains a code and a token
    And the client obtained an authorization code for an S256 code_challenge
    When the client redeems the code with an unrecognized parameter added
    Then the token endpoint issues an access token

  # OAuth 2.1 3.2: "Parameters sent without a value MUST be treated as if they
  # were omitted from the request."
  @TOKEP-2 @needs-authorization-approval @id:refresh-empty-scope-treated-as-omitted
  Scenario: A refresh with an empty scope is served as one without scope
    Given the client obtained an authorization code for an S256 code_challenge
    And that the client redeemed the code for a refresh token
    # The control: the same refresh without scope.
    And that the client's valid refresh obtains a token
    When the client refreshes with an empty scope
    Then the token endpoint issues an access token with the scope the refresh without it obtained

  # OAuth 2.1 2.4.1: "To support clients in possession of a client secret, the
  # authorization server MUST support the client including the client
  # credentials in the request body content".
  @CLIENTAUTH-1 @needs-authorization-approval @id:confidential-client-secret-in-request-body
  Scenario: A confidential client's secret in the request body is taken
    Given the client holds a client secret
    # The control: the client's valid flow, authenticated the way its
    # metadata says.
    And that the client's valid authorization request obtains a code and a token
    And the client obtained an authorization code for an S256 code_challenge
    When the client redeems the code with its client secret in the request body
    Then the token endpoint issues an access token

  # OAuth 2.1 3.2.2: the server MUST "require client authentication for
  # confidential clients"; 2.2: the client identifier "MUST NOT be used alone
  # for client authentication".
  @CLIENTAUTH-2 @needs-authorization-approval @id:confidential-client-without-secret-refused
  Scenario: A confidential client's redemption without its secret is refused
    Given the client holds a client secret
    # The control: the same redemption with the secret.
    And that the client's valid authorization request obtains a code and a token
    And the client obtained an authorization code for an S256 code_challenge
    When the client redeems the code without its client secret
    Then the token endpoint refuses the client

  @CLIENTAUTH-2 @needs-authorization-approval @id:confidential-client-wrong-secret-refused
  Scenario: A confidential client's redemption with a wrong secret is refused
    Given the client holds a client secret
    # The control: the same redemption with the right secret.
    And that the client's valid authorization request obtains a code and a token
    And the client obtained an authorization code for an S256 code_challenge
    When the client redeems the code with a wrong client secret
    Then the token endpoint refuses the client

  # OAuth 2.1 3.2.4: "If the client attempted to authenticate via the
  # Authorization request header field, the authorization server MUST respond
  # with an HTTP 401 (Unauthorized) status code and include the
  # WWW-Authenticate response header field matching the authentication scheme
  # used by the client."
  @CLIENTAUTH-3 @needs-authorization-approval @id:basic-client-authentication-failure-401-basic-challenge
  Scenario: A failed HTTP Basic client authentication answers 401 with a Basic challenge
    Given the client holds a client secret
    # The control: the client's valid flow, authenticated the way its
    # metadata says.
    And that the client's valid authorization request obtains a code and a token
    And the client obtained an authorization code for an S256 code_challenge
    When the client redeems the code with a wrong client secret in HTTP Basic
    Then the token endpoint answers 401 with a Basic challenge
