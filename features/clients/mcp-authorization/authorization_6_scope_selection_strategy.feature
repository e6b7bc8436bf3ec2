# MCP Authorization, section 6, Scope Selection Strategy (RFC 6750 3), the
# client's side. The scripted server's 401 challenge names a scope its
# protected resource metadata's scopes_supported does not list.
Feature: authorization.6 The scope the client asks for
  "Clients MUST NOT assume any particular set relationship between the
  challenged scope set and scopes_supported. Clients MUST treat the scopes
  provided in the challenge as authoritative for the current operation."

  @CLI-8 @id:client-asks-for-challenged-scopes
  Scenario: The client asks for every scope the challenge names, even one scopes_supported does not list
    Given a scripted server that challenges for a scope its metadata does not list
    When the client is run
    Then the authorization request asked for every scope the challenge named
