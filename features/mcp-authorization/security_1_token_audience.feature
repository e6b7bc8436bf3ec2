# MCP Authorization Security Considerations, section 1 Token Audience Binding
# and Validation, for the authorization server: OAuth 2.1 7.1.3.6 and 7.1.4.
@needs-authorization
Feature: security.1 The audience of issued tokens
  The access tokens the authorization server issues carry an audience
  restriction: a JWT's aud, or the aud its introspection endpoint answers.
  An opaque token whose audience nothing tells leaves the scenario not run.

  # OAuth 2.1 7.1.3.6: "Authorization servers SHOULD issue bearer tokens that
  # contain an audience restriction, scoping their use to the intended
  # relying party or set of relying parties."
  @AUD-1 @needs-authorization-approval @id:issued-access-token-names-audience
  Scenario: The access token the authorization server issues names its audience
    Given a public client registered with the authorization server
    And the client obtained an authorization code for an S256 code_challenge
    And that the client redeemed the code for a token
    Then the token response's access token names an audience
