# MCP Authorization, section 3 (authorization based on OAuth 2.1), the
# client's side: OAuth 2.1 sections 4.1.2 (authorization response) and 3.2.3
# (token response). The scripted authorization server adds a parameter and a
# member no specification defines; the client that completed the flow
# against a compliant server in the same run must complete it here too.
Feature: authorization.3 Response members the client does not know
  "The client MUST ignore unrecognized response parameters." "The client
  MUST ignore unrecognized value names in the response."

  @CLI-30 @id:client-ignores-unknown-response-members
  Scenario: The client ignores a parameter or member it does not know in the authorization and token responses
    Given the client has completed the flow against a compliant server in this run
    And a scripted server that adds a member no specification defines to its authorization and token responses
    When the client is run
    Then the client made an authorized call
