# MCP Authorization, sections 11.1.1 Runtime Insufficient Scope Errors and
# 11.1.2 Step-Up Authorization Flow.
@needs-authorization
Feature: authorization.11.1 One challenge for every scope an operation needs
  "Whatever scope-inclusion strategy a server adopts, servers SHOULD include
  all scopes required for the current operation in a single challenge." A
  client that steps up as authorization.11.1.2 says, asking for the union of
  the scope it held and the scopes the challenge named, gets a token the
  same request is served with, or is challenged again only for scopes it
  asked for (the authorization server may grant less). The limited token's
  scope is read from it, a JWT (RFC 9068); when it cannot be, the union
  cannot be formed and the check is not run.

  @SCOPE-4 @needs-limited-token @needs-authorization-approval @id:insufficient-scope-challenge-names-every-scope-at-once
  Scenario: The insufficient_scope challenge names every scope the operation needs at once
    Given a caller with a token that lacks the scope the scoped request needs
    And that the server takes that token as valid: it serves the request that needs authorization, or refuses it 403 for insufficient scope
    When the caller sends the request that needs more scope
    # Premises: SCOPE-1 and SCOPE-3 judge the refusal and its challenge.
    Given that the HTTP status is 403
    And a caller with a token holding the limited token's scope and the scope the challenge names
    When the caller sends the request that needs more scope
    Then the server serves the request, or challenges for no scope the first challenge left out
