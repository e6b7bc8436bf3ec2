# MCP Authorization, section 7.1 Authorization Response Validation (RFC 9207).
@needs-authorization
Feature: authorization.7.1 The issuer in authorization responses
  The authorization server should name itself with iss in every
  authorization response, errors included; one that does advertises it in its
  metadata, and one that advertises it always sends iss, identical to its
  issuer. An error response is had without a person: an authorization
  request without code_challenge, or, from a server that checks PKCE only
  at the token endpoint, one with a response_type it cannot support.

  Background:
    Given a public client registered with the authorization server

  @ISS-3 @id:authorization-error-response-carries-iss
  Scenario: An authorization error response carries iss
    When the client sends an authorization request the server must refuse: without code_challenge, else with a response_type it does not support
    Given that the authorization server answers by redirecting to the redirect_uri with an error
    Then the authorization response carries iss

  @ISS-1 @id:authorization-server-sends-iss-advertises
  Scenario: An authorization server that sends iss advertises it
    When the client sends an authorization request the server must refuse: without code_challenge, else with a response_type it does not support
    Given that the authorization server answers by redirecting to the redirect_uri with an error
    Then the authorization server metadata advertises authorization_response_iss_parameter_supported, if the authorization response carries iss

  @ISS-2 @id:authorization-server-advertises-iss-names-itself-error
  Scenario: An authorization server that advertises iss names itself in an error response
    Given that the authorization server metadata advertises authorization_response_iss_parameter_supported
    When the client sends an authorization request the server must refuse: without code_challenge, else with a response_type it does not support
    Given that the authorization server answers by redirecting to the redirect_uri with an error
    Then the authorization response's iss is the metadata's issuer

  @ISS-2 @needs-authorization-approval @id:authorization-server-advertises-iss-names-itself-successful
  Scenario: An authorization server that advertises iss names itself in a successful response
    Given that the authorization server metadata advertises authorization_response_iss_parameter_supported
    When the client's valid authorization request is approved
    Then the authorization response carries a code
    And the authorization response's iss is the metadata's issuer

  @ISS-3 @needs-authorization-approval @id:successful-authorization-response-carries-iss
  Scenario: A successful authorization response carries iss
    When the client's valid authorization request is approved
    Then the authorization response carries a code
    And the authorization response carries iss
