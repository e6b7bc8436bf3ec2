# MCP Authorization, section 11, Error Handling: Scope Challenge Handling
# and the Step-Up Authorization Flow, the client's side. The scripted server
# challenges for the listing scope only, grants what is asked, and answers a
# tools/call without the write scope 403 insufficient_scope.
Feature: authorization.11 Step-up authorization by the client
  "Clients acting on behalf of a user SHOULD attempt the step-up
  authorization flow."

  @CLI-9 @id:client-steps-up-on-insufficient-scope
  Scenario: On 403 insufficient_scope the client asks for the challenge's scopes and calls again
    Given a scripted server that grants only the scope asked for and needs more to call a tool
    And the client is asked to call a tool
    When the client is run
    Then after the 403 the client asked for the scopes it named, and its call then succeeded
