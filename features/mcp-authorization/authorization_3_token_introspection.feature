# MCP Authorization, section 3 (the authorization server's metadata, RFC
# 8414), and RFC 7662 Token Introspection, which binds an authorization
# server that advertises introspection_endpoint. One that does not has these
# scenarios not applicable. Every introspection but the first is made as the
# profile's client with its secret (mcp_authorization.client_id,
# mcp_authorization.client_secret_env).
@needs-authorization
Feature: authorization.3 Token introspection
  The introspection endpoint tells a caller without credentials nothing of
  an active token; to an authorized caller it answers active, a boolean,
  finds a token whatever token_type_hint came with it, and says of a token
  never issued active false, and nothing else.

  Background:
    Given the authorization server's metadata, found the way a client finds it
    And the authorization server advertises an introspection_endpoint

  # RFC 7662 2.1: "To prevent token scanning attacks, the endpoint MUST also
  # require some form of authorization to access this endpoint".
  @INTROSPECT-1 @needs-credential @id:introspection-tells-caller-without-credentials-nothing
  Scenario: The introspection endpoint tells a caller without credentials nothing of an active token
    Given that the server serves the request that needs authorization with the target's credential
    When the client introspects the target's credential without authenticating
    Then the introspection does not say the token is active

  # RFC 7662 2.2: "active REQUIRED. Boolean indicator of whether or not the
  # presented token is currently active."
  @INTROSPECT-3 @needs-credential @id:introspection-answer-says-active
  Scenario: An introspection answer says whether the token is active
    Given that the server serves the request that needs authorization with the target's credential
    When the client introspects the target's credential
    Then the introspection says active, a boolean

  # RFC 7662 2.2: "If the introspection call is properly authorized but the
  # token is not active, does not exist on this server, ... the
  # authorization server MUST return an introspection response with the
  # "active" field set to "false"."
  @INTROSPECT-3 @needs-credential @id:introspection-token-never-issued-inactive
  Scenario: A token the server never issued is introspected inactive
    Given the client introspects the target's credential
    And that the introspection says active, a boolean
    When the client introspects a token the server never issued
    Then the introspection says active false

  # RFC 7662 2.1: "If the server is unable to locate the token using the
  # given hint, it MUST extend its search across all of its supported token
  # types."
  @INTROSPECT-2 @needs-credential @id:introspection-finds-token-under-wrong-hint
  Scenario: Introspection finds a token under the token_type_hint refresh_token
    Given the client introspects the target's credential
    And that the introspection says active true
    When the client introspects the target's credential with token_type_hint refresh_token
    Then the introspection says active true

  # RFC 7662 2.2: "the authorization server SHOULD NOT include any
  # additional information about an inactive token, including why the token
  # is inactive."
  @INTROSPECT-4 @needs-credential @id:introspection-inactive-token-says-nothing-else
  Scenario: The introspection answer for an inactive token says nothing else
    Given the client introspects the target's credential
    And that the introspection says active, a boolean
    When the client introspects a token the server never issued
    Then the introspection says active false and nothing else
