# MCP Authorization, Client Registration page ("registration.N"), sections
# 3.1 (Application Type and Redirect URI Constraints) and 4 (Authorization
# Server Binding), the client's side. Dynamic registration is one of the
# ways a client may get a client ID: a client that registers otherwise leaves
# these scenarios not run.
Feature: registration.3 Dynamic client registration by the client
  "MCP clients MUST specify an appropriate application_type during Dynamic
  Client Registration." "When the authorization server changes ..., clients
  MUST NOT reuse client credentials from a different authorization server
  and MUST re-register with the new authorization server."

  @CLI-20 @id:client-registers-with-application-type
  Scenario: The client names an application_type when it registers dynamically
    Given a scripted server that behaves as the specification says
    When the client is run
    Then every registration request named an application_type

  # Between the starts the server's protected resource metadata comes to
  # name another authorization server, and the client's token stops working
  # (the server does not take the new one's tokens either: only what the
  # client sends the new authorization server is judged).
  @CLI-21 @id:client-reregisters-with-another-authorization-server
  Scenario: The client uses no client_id of one authorization server with another
    Given a scripted server that behaves as the specification says
    When the client is run
    And the scripted server moves to another authorization server
    And the scripted server revokes every credential it issued
    And the client is run again
    Then the new authorization server received no client_id the first one issued
