# MCP Authorization, Security Considerations, section 4 (OAuth 2.1 4.1.1 and
# 7.5.2, RFC 7636), the client's side.
Feature: security.4 Authorization code protection by the client
  "MCP clients MUST implement PKCE according to OAuth 2.1 Section 7.5.2 and
  MUST verify PKCE support before proceeding with authorization." "MCP
  clients MUST use the S256 code challenge method when technically
  capable." "If code_challenge_methods_supported is absent, the
  authorization server does not support PKCE and MCP clients MUST refuse to
  proceed." OAuth 2.1 7.5.2: "The code_challenge or OpenID Connect nonce
  value MUST be transaction-specific".

  @CLI-5 @id:client-refuses-without-pkce-support
  Scenario: The client refuses to proceed when the metadata has no code_challenge_methods_supported
    Given the client has completed the flow against a compliant server in this run
    And a scripted server that serves authorization server metadata without code_challenge_methods_supported
    When the client is run
    Then the client stopped before its authorization request

  @CLI-6 @id:client-uses-pkce-s256
  Scenario: The client uses PKCE with S256 and redeems the code with its verifier
    Given a scripted server that behaves as the specification says
    When the client is run
    Then every authorization request used PKCE with S256, and its code was redeemed with the matching code_verifier

  # A step-up makes a second authorization request in the same run.
  @CLI-26 @id:client-new-code-challenge-per-request
  Scenario: The client sends a new code_challenge with each authorization request
    Given a scripted server that grants only the scope asked for and needs more to call a tool
    And the client is asked to call a tool
    When the client is run
    Then no two authorization requests carried the same code_challenge
