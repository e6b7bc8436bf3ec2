# MCP Security Best Practices, section 2.4.2 (session hijacking: mitigation),
# with Authorization section 11.
@needs-authorization
Feature: practices.2.4.2 Session handles
  "MCP servers that implement authorization MUST verify all inbound
  requests. MCP servers MUST NOT treat possession of a state handle as
  authentication." A request that carries the session a token was served
  in, but no token, answers 401 as any request without a token does
  (authorization.11). A server that opens no session hands out no handle.

  @HANDLE-1 @needs-credential @id:session-without-token-answers-401
  Scenario: A request in the session the server's own token was served in, without the token, answers 401
    # A server that serves the request without any token is TOK-1's.
    Given that the server refuses the request that needs authorization without a token
    And a caller with the target's credential
    When the caller sends the request that needs authorization
    # The positive control: the same request, in that session, with the token.
    Given that the server serves the request: HTTP 2xx
    When the caller sends the same request in its session, without the token
    Then the HTTP status is 401
