# MCP Authorization, section 11.1 Scope Challenge Handling (RFC 6750 section 3.1).
@needs-authorization
Feature: authorization.11.1 Scope challenge handling
  A token valid for the server but without the scope an operation needs
  answers 403 with a Bearer challenge whose error is insufficient_scope and
  that names the scope needed and the resource metadata.

  @SCOPE-1 @needs-limited-token
  Scenario: A token without the scope an operation needs answers 403 with an insufficient_scope challenge
    Given a caller with a token that lacks the scope the scoped request needs
    When the caller sends the request that needs more scope
    Then the HTTP status is 403
    And the "WWW-Authenticate" header is a Bearer challenge with error "insufficient_scope", a scope and a resource_metadata
