# MCP Authorization, sections 11 Error Handling and 11.1 Scope Challenge
# Handling (OAuth 2.1 section 5, RFC 6750 section 3.1).
@needs-authorization
Feature: authorization.11.1 Scope challenge handling
  A token the server accepts, but without the scope an operation needs, is
  refused 403 for that operation, with a Bearer challenge whose error is
  insufficient_scope and that names the scope needed and the resource
  metadata. The profile names a request the limited token may make and one
  whose scope it lacks.

  @SCOPE-1 @needs-limited-token @id:token-without-scope-operation-needs-refused-403
  Scenario: A token without the scope an operation needs is refused 403
    Given a caller with a token that lacks the scope the scoped request needs
    And that the server takes that token as valid: it serves the request that needs authorization, or refuses it 403 for insufficient scope
    When the caller sends the request that needs more scope
    Then the server refuses the request 403, insufficient permissions

  @SCOPE-3 @needs-limited-token @id:403-insufficient-scope-carries-insufficient-scope-challenge
  Scenario: The 403 for insufficient scope carries an insufficient_scope challenge naming the scope and the metadata
    Given a caller with a token that lacks the scope the scoped request needs
    And that the server takes that token as valid: it serves the request that needs authorization, or refuses it 403 for insufficient scope
    When the caller sends the request that needs more scope
    # A premise here: SCOPE-1 judges the status itself.
    Given that the HTTP status is 403
    Then the "WWW-Authenticate" header is a Bearer challenge with error "insufficient_scope", a scope and a resource_metadata
