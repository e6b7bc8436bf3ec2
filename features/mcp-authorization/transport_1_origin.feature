# MCP Streamable HTTP transport, section 1 Security & Endpoint.
Feature: transport.1 Origin validation
  The server validates the Origin header of every request, against DNS
  rebinding: a request whose Origin is present and invalid answers 403
  Forbidden. The same request without an Origin must be answered otherwise,
  so that the 403 is known to come from the Origin. Unlike the rest of the
  pack, this is a rule of the transport, binding on every MCP server over
  streamable HTTP, whether or not it implements authorization. The request
  is one a server answers with no request before it: server/discover in
  revision 2026-07-28, initialize in earlier ones.

  @ORIGIN-1 @id:request-invalid-origin-answers-403-forbidden
  Scenario: A request with an invalid Origin answers 403 Forbidden
    Given a caller with the target's credential, or an anonymous caller when the profile has none
    When the caller sends a request the server answers on its own, without an Origin header
    # So that the Origin alone can decide:
    Given that the server answers neither 401 nor 403
    When the caller sends the same request with the Origin "{mcp_authorization.invalid_origin}"
    Then the HTTP status is 403
