# MCP Authorization, section 7.1, Authorization Response Validation (RFC
# 9207 2.4), the client's side. The scripted authorization server advertises
# authorization_response_iss_parameter_supported; the redirect is delivered
# to the client's listener, and no token request may follow it.
Feature: authorization.7.1 Authorization response validation by the client
  "On receiving the authorization response, MCP clients MUST apply the
  validation in RFC9207 Section 2.4 before transmitting the authorization
  code to any token endpoint": an iss present is compared to the recorded
  issuer; when the metadata says true and iss is absent, "Reject the
  response". "clients MUST NOT apply scheme or host case folding,
  default-port elision, trailing-slash, or percent-encoding normalization
  ... before comparison."

  @CLI-10 @id:client-rejects-iss-of-another-issuer
  Scenario: The client sends no token request after an authorization response whose iss is another issuer's
    Given the client has completed the flow against a compliant server in this run
    And a scripted server that answers the authorization request with another issuer's iss
    When the client is run
    Then the client stopped after the redirect, before any token request

  @CLI-10 @id:client-rejects-missing-iss
  Scenario: The client sends no token request after an authorization response without the iss its server advertises
    Given the client has completed the flow against a compliant server in this run
    And a scripted server that advertises iss but leaves it out of the authorization response
    When the client is run
    Then the client stopped after the redirect, before any token request

  @CLI-27 @id:client-compares-iss-unnormalized
  Scenario: The client sends no token request after an authorization response whose iss is the issuer with a trailing slash
    Given the client has completed the flow against a compliant server in this run
    And a scripted server that answers the authorization request with its issuer's iss and a trailing slash
    When the client is run
    Then the client stopped after the redirect, before any token request
