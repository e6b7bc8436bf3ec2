# MCP Streamable HTTP transport, sections 2 (Sending Messages) and 6.1
# (Protocol Version Header), the client's side, against a scripted server
# that speaks only 2026-07-28 and refuses a request whose headers do not
# match its body.
Feature: transport.2 The request metadata headers the client sends
  "The client MUST include the request metadata headers on each POST
  request." "Every POST request to the MCP endpoint MUST include an
  MCP-Protocol-Version header." "The header value MUST match the
  io.modelcontextprotocol/protocolVersion field carried in the request
  body's _meta."

  @CLI-14 @id:client-sends-request-metadata-headers
  Scenario: A client speaking 2026-07-28 sends the protocol version and method headers on every POST
    Given a scripted server that speaks only MCP 2026-07-28
    When the client is run
    Then every request to the MCP server carried the 2026-07-28 headers, matching its body
    And the client made an authorized call

  @CLI-28 @id:client-version-header-matches-body
  Scenario: A client's MCP-Protocol-Version header names the protocol version its body's _meta carries
    Given a scripted server that speaks only MCP 2026-07-28
    When the client is run
    Then every request to the MCP server named in MCP-Protocol-Version the protocol version of its body's _meta
