# MCP Authorization, section 11, Error Handling: Scope Challenge Handling
# and the Step-Up Authorization Flow, the client's side. The scripted server
# challenges for the listing scope only, grants what is asked, and answers a
# tools/call without the write scope 403 insufficient_scope.
Feature: authorization.11 Step-up authorization by the client
  "Clients acting on behalf of a user SHOULD attempt the step-up
  authorization flow." "When re-authorizing, clients SHOULD include these
  scopes alongside any previously granted scopes to avoid losing
  permissions needed for other operations" (authorization.6).

  @CLI-9 @id:client-steps-up-on-insufficient-scope
  Scenario: On 403 insufficient_scope the client asks for the challenge's scopes and calls again
    Given a scripted server that grants only the scope asked for and needs more to call a tool
    And the client is asked to call a tool
    When the client is run
    Then after the 403 the client asked for the scopes it named, and its call then succeeded

  # The 403 names only the write scope, which the token lacks, and not the
  # listing scope it was granted: "servers are not required to include the
  # client's previously granted scopes".
  @CLI-25 @id:client-step-up-keeps-granted-scopes
  Scenario: On step-up the client asks for the scopes it was granted alongside those the 403 names
    Given a scripted server that grants only the scope asked for and names in its 403 only the scope it lacks
    And the client is asked to call a tool
    When the client is run
    Then after the 403 the client asked for the scopes it was granted alongside those the 403 named
