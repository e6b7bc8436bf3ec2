# MCP Authorization, section 9.1, Token Requirements (OAuth 2.1 5.1.1), the
# client's side.
Feature: authorization.9.1 How the client presents its token
  "MCP client MUST use the Authorization request header field"; "Note that
  authorization MUST be included in every HTTP request from client to
  server." "Access tokens MUST NOT be included in the URI query string."

  @CLI-11 @id:client-sends-token-on-every-request
  Scenario: Once it holds a token, the client sends it in the Authorization header of every request
    Given a scripted server that behaves as the specification says
    When the client is run
    Then every request to the MCP server after the first token carried a token in the Authorization header

  @CLI-12 @id:client-never-sends-token-in-query
  Scenario: The client never puts an access token in a URI query
    Given a scripted server that behaves as the specification says
    When the client is run
    Then no request carried an access token in its URI query
