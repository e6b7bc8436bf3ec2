# MCP Authorization, section 9.2, Token Handling, the client's side: the
# client meets a second MCP server, with its own authorization server, with
# the state it kept from the first.
Feature: authorization.9.2 Which tokens the client sends a server
  "MCP clients MUST NOT send tokens to the MCP server other than ones issued
  by the MCP server's authorization server."

  @CLI-13 @id:client-sends-no-token-of-another-server
  Scenario: The client sends a second server no token the first server's authorization server issued
    Given a scripted server that behaves as the specification says
    When the client is run
    And the client is run again against another scripted server
    Then the second server received no token the first server's authorization server issued
