# MCP Authorization Security Considerations, section 6 Open Redirection
# (OAuth 2.1 sections 3.1, 4.1.1, 4.1.2, 4.1.2.1 and 10.2).
@needs-authorization
Feature: security.6 Open redirection
  The authorization server matches redirect URIs exactly against the ones the
  client registered, never redirects for a client it does not know, echoes
  state exactly, and serves no cross-origin script at its authorization
  endpoint. The changed redirect URI keeps the registered scheme, host and
  port and extends the path. OAuth 2.1 removed redirect_uri from the token
  request (section 10.2): a server may redeem a code whatever redirect_uri
  comes with it, but one that refuses says invalid_grant.

  Background:
    Given a public client registered with the authorization server

  @REDIR-1 @needs-authorization-approval @id:authorization-endpoint-never-redirects-redirect-uri-client
  Scenario: The authorization endpoint never redirects to a redirect_uri the client did not register
    # The control: the same client, scope and redirect URI, the valid way.
    Given that the client's valid authorization request obtains a code and a token
    When the client sends an authorization request whose redirect_uri extends the registered one's path
    Then the authorization server does not redirect to the redirect_uri

  @REDIR-3 @needs-authorization-approval @id:authorization-endpoint-never-redirects-client-id-never
  Scenario: The authorization endpoint never redirects for a client_id it never issued
    # The control: the same client, scope and redirect URI, the valid way.
    Given that the client's valid authorization request obtains a code and a token
    When the client sends an authorization request with a client_id the server never issued
    Then the authorization server does not redirect to the redirect_uri

  @REDIR-2 @needs-authorization-approval @id:redeeming-code-another-redirect-uri-than-authorization
  Scenario: Redeeming a code with another redirect_uri than its authorization request's is refused, if at all, with invalid_grant
    # The control: the same client, scope and redirect URI, the valid way.
    Given that the client's valid authorization request obtains a code and a token
    And the client obtained an authorization code for an S256 code_challenge
    When the client redeems the code with a redirect_uri that extends the registered one's path
    Then the token endpoint refuses the request, if at all, with "invalid_grant"

  @STATE-1 @needs-authorization-approval @id:approved-authorization-response-carries-state-exactly-sent
  Scenario: An approved authorization response carries the state exactly as sent
    When the client's valid authorization request is approved
    Then the authorization response carries the state sent, exactly

  @STATE-1 @id:authorization-error-response-carries-state-exactly-sent
  Scenario: An authorization error response carries the state exactly as sent
    When the client sends an authorization request the server must refuse: without code_challenge, else with a response_type it does not support
    Given that the authorization server answers by redirecting to the redirect_uri with an error
    Then the authorization response carries the state sent, exactly

  @CORS-1 @id:authorization-endpoint-serves-no-cross-origin-request
  Scenario: The authorization endpoint serves no cross-origin request
    Given that the client's valid authorization request, without an Origin header, is answered with a page or a redirect
    When the client sends its authorization request with an Origin header
    Then the authorization server does not allow that origin by CORS at its authorization endpoint
    When the client sends the CORS preflight of its authorization request, from that origin
    Then the authorization server does not allow that origin by CORS at its authorization endpoint

  @LOOPBACK-1 @id:loopback-ip-redirect-uri-accepted-another-port
  Scenario: A loopback IP redirect URI is accepted on another port than the registered one's
    Given that the registered redirect_uri is a loopback IP literal
    # The control: the same client, scope and redirect URI, the valid way.
    And that the client's valid authorization request obtains a code and a token
    When the client sends its authorization request with the redirect_uri on another port
    Then the authorization server accepts that redirect_uri, redirecting to it
