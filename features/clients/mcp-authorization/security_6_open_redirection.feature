# MCP Authorization, Security Considerations, section 6 (Open Redirection;
# OAuth 2.1 7.12), the client's side.
Feature: security.6 The state the client sends and verifies
  "MCP clients SHOULD use and verify state parameters in the authorization
  code flow and discard any results that do not include or have a mismatch
  with the original state."

  @CLI-22 @id:client-sends-state
  Scenario: The client sends a state in its authorization request
    Given a scripted server that behaves as the specification says
    When the client is run
    Then every authorization request carried a state

  @CLI-22 @id:client-discards-response-with-another-state
  Scenario: The client discards an authorization response whose state is not the one it sent
    Given the client has completed the flow against a compliant server in this run
    And a scripted server that answers the authorization request with a state other than the one sent
    When the client is run
    Then the client stopped after the redirect, before any token request
