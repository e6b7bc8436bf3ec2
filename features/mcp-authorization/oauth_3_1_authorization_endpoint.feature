# MCP Authorization, section 3 (authorization servers implement OAuth 2.1):
# the authorization endpoint, OAuth 2.1 sections 1.4.1, 3.1, 4.1.1 and 7.10.
@needs-authorization
Feature: authorization.3 The authorization endpoint
  The authorization endpoint takes GET, ignores a parameter it does not
  know, answers a request without scope with a default scope or
  invalid_scope and one with scope empty the same way, answers a missing or
  unsupported response_type with an error, sends each parameter once, and
  keeps its pages from being framed. Every refusal is judged only after the
  same client, scope and redirect URI obtained a code and a token the valid
  way in the same run.

  Background:
    Given a public client registered with the authorization server

  @AUTHEP-1 @id:authorization-endpoint-takes-get
  Scenario: The authorization endpoint takes the authorization request by GET
    # "The authorization server MUST support the use of the HTTP GET method
    # ... for the authorization endpoint" (OAuth 2.1 3.1).
    When the client sends its valid authorization request
    Then the authorization server takes the authorization request by GET

  @AUTHEP-2 @needs-authorization-approval @id:authorization-endpoint-ignores-unrecognized-parameter
  Scenario: The authorization endpoint ignores a parameter it does not recognize
    # The control: the same client, scope and redirect URI, the valid way.
    Given that the client's valid authorization request obtains a code and a token
    # "The authorization server MUST ignore unrecognized request parameters
    # sent to the authorization endpoint" (OAuth 2.1 3.1).
    When the client sends its valid authorization request with a parameter no specification defines
    Then the authorization server answers with a code, ignoring the parameter it does not know

  @AUTHREQ-1 @needs-authorization-approval @id:authorization-request-without-scope-default-or-invalid-scope
  Scenario: An authorization request without scope, or with scope empty, gets a default scope or invalid_scope
    # The control: the same client, scope and redirect URI, the valid way.
    Given that the client's valid authorization request obtains a code and a token
    # "If the client omits the scope parameter when requesting authorization,
    # the authorization server MUST either process the request using a
    # pre-defined default value or fail the request indicating an invalid
    # scope" (OAuth 2.1 1.4.1).
    When the client sends an authorization request without scope
    Then the authorization server answers with a code or the error response "invalid_scope"
    # "Parameters sent without a value MUST be treated as if they were
    # omitted from the request" (OAuth 2.1 3.1).
    When the client sends an authorization request with scope sent empty
    Then the authorization server answers as it answered the request without scope

  @AUTHREQ-2 @needs-authorization-approval @id:authorization-request-without-supported-response-type-refused
  Scenario: An authorization request without response_type, or with response_type token, gets an error, never a code or a token
    # The control: the same client, scope and redirect URI, the valid way.
    Given that the client's valid authorization request obtains a code and a token
    # "If an authorization request is missing the response_type parameter, or
    # if the response type is not understood, the authorization server MUST
    # return an error response" (OAuth 2.1 4.1.1); "Bearer tokens MUST NOT be
    # passed in page URLs" (7.1.3.7).
    When the client sends an authorization request without response_type
    Then the authorization server refuses the authorization request
    When the client sends an authorization request with response_type "token"
    Then the authorization server refuses the authorization request

  @PARAM-1 @needs-authorization-approval @id:authorization-token-responses-carry-each-parameter-once
  Scenario: Authorization and token responses carry each parameter once
    Given the client obtained an authorization code for an S256 code_challenge
    # "Request and response parameters defined by this specification MUST NOT
    # be included more than once" (OAuth 2.1 3.1, 3.2).
    Then the authorization response carries each parameter once
    Given that the client redeemed the code for a token
    Then the token response carries each parameter once

  @FRAME-1 @id:authorization-page-forbids-framing
  Scenario: A page of the authorization endpoint forbids framing by other sites
    When the client sends its valid authorization request
    # Only a page can be framed: an endpoint that redirects at once has none.
    Given that the authorization server answers the valid request with a page
    # "authorization servers SHOULD also use Content Security Policy (CSP)
    # level 2 or greater" (OAuth 2.1 7.10), whose frame-ancestors directive
    # forbids framing.
    Then the authorization server forbids framing its page with Content-Security-Policy frame-ancestors
