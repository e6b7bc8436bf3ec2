# MCP Authorization Security Considerations, section 6 Open Redirection
# (OAuth 2.1 sections 4.1.1, 4.1.2.1 and 4.1.3).
@needs-authorization
Feature: security.6 Open redirection
  The authorization server matches redirect URIs exactly against the ones the
  client registered, at the authorization endpoint, and the token endpoint
  redeems a code only with the redirect_uri of its authorization request. The
  changed redirect URI keeps the registered scheme, host and port (a loopback
  redirect URI may change its port) and extends the path.

  @REDIR-1
  Scenario: The authorization endpoint never redirects to a redirect_uri the client did not register
    Given a public client registered with the authorization server
    When the client sends an authorization request whose redirect_uri extends the registered one's path
    Then the authorization server does not redirect to that redirect_uri

  @REDIR-2 @needs-authorization-approval
  Scenario: Redeeming a code with another redirect_uri than its authorization request's is refused
    Given a public client registered with the authorization server
    And an authorization code issued to the client for an S256 code_challenge
    When the client redeems the code with a redirect_uri that extends the registered one's path
    Then the token endpoint refuses the request
