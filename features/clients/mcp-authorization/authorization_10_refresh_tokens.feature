# MCP Authorization, sections 10 (Refresh Tokens) and 8 (Resource Parameter
# Implementation), the client's side: the scripted server lets the access
# token expire, and the client starts again with the refresh token it kept.
# Refresh tokens are optional: a client that signs in again instead leaves
# these scenarios not applicable (not run); the last judges a client that
# desires them and is given none.
Feature: authorization.10 Refresh tokens, when the client uses them
  MCP clients that desire refresh tokens "SHOULD include refresh_token in
  their grant_types client metadata" and "MUST NOT assume refresh tokens
  will be issued"; the resource parameter "MUST be included in both
  authorization requests and token requests".

  @CLI-7 @id:client-refresh-names-resource
  Scenario: A refresh request names the protected resource metadata's resource
    Given a scripted server that behaves as the specification says
    When the client is run
    And the scripted server revokes every credential it issued
    And the client is run again
    Then every refresh request named the protected resource metadata's resource
    And the client made an authorized call

  @CLI-23 @id:client-registers-refresh-grant
  Scenario: A client that refreshes registered with refresh_token in its grant_types
    Given a scripted server that behaves as the specification says
    When the client is run
    And the scripted server revokes every credential it issued
    And the client is run again
    Then the client had registered with refresh_token in its grant_types

  # The authorization server issues refresh tokens only to authorizations
  # that ask for offline_access, which it names nowhere, so the client gets
  # none: it must sign in again.
  @CLI-31 @id:client-signs-in-again-without-refresh-token
  Scenario: A client that desires refresh tokens and holds none obtains a new token when its token is refused
    Given a scripted server that issues refresh tokens only for offline_access, which it does not advertise
    When the client is run
    And the scripted server revokes every credential it issued
    And the client is run again
    Then after its token was refused, the client obtained a new one and called with it
