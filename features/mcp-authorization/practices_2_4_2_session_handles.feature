# MCP Security Best Practices, section 2.4.2 (session hijacking: mitigation),
# with Authorization section 11.
@needs-authorization
Feature: practices.2.4.2 Session handles
  "MCP servers that implement authorization MUST verify all inbound
  requests. MCP servers MUST NOT treat possession of a state handle as
  authentication." A request that carries the session a token was served
  in, but no token, answers 401 as any request without a token does
  (authorization.11). "MCP servers SHOULD bind handles server-side to the
  authenticated user ... and reject a handle presented by any other
  principal": the session opened for the credential's user is refused to
  another user's token. A server that opens no session hands out no handle.

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

  @HANDLE-2 @needs-credential @needs-other-user-token @id:session-refused-to-another-users-token
  Scenario: The session the server's own token was served in is refused to another user's token
    # The positive controls: each user's token is served on its own.
    Given a caller with another user's token
    When the caller sends the request that needs authorization
    Given that the server serves the request: HTTP 2xx
    And a caller with the target's credential
    When the caller sends the request that needs authorization
    Given that the server serves the request: HTTP 2xx
    When the caller sends the same request in its session, with another user's token
    # Any refusal: the sentence names no status, and a 4xx is how a client's
    # request is refused (RFC 9110 15.5).
    Then the HTTP status is a 4xx
