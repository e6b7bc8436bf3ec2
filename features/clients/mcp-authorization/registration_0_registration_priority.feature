# MCP Client Registration, introduction, the client's side. The scripted
# authorization server offers every way to name a client: it knows the
# client registered beforehand that the profile names (client.client_id),
# fetches the client ID metadata document a URL-formatted client_id names,
# and takes dynamic registrations. Which ways the client has, only the
# profile can say: without client.client_id or client.client_metadata_url
# this scenario is not applicable.
Feature: registration.0 The order in which a client names itself
  "Clients supporting all options SHOULD use the following priority order:
  1. Use pre-registered client information for the server if the client
  has it available 2. Use Client ID Metadata Documents if the
  Authorization Server indicates that it supports them ... 3. Use Dynamic
  Client Registration as a fallback".

  @CLI-34 @id:client-uses-given-client-first
  Scenario: A client given a client registered beforehand or a metadata document uses it rather than registering
    Given a scripted server that behaves as the specification says
    When the client is run
    Then the client named itself by the client it was given rather than registering dynamically
