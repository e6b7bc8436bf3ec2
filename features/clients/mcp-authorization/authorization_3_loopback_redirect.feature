# OAuth 2.1 8.4.2 (which OAuth 2.1 4.1.1 cites for native clients, and MCP
# Authorization, section 3, makes binding), the client's side. The scripted
# authorization server takes a loopback redirect URI on the name localhost
# as on an IP literal, so the client's choice is read from what it sends.
Feature: authorization.3 The host of the client's loopback redirect URI
  "While redirect URIs using the name localhost (i.e.,
  http://localhost:{port}/{path}) function similarly to loopback IP
  redirects, the use of localhost is NOT RECOMMENDED."

  @CLI-37 @id:client-redirect-uri-loopback-literal
  Scenario: The client's loopback redirect URIs name a loopback IP literal, not localhost
    Given a scripted server that behaves as the specification says
    When the client is run
    Then no redirect URI the client registered or sent names the host localhost
