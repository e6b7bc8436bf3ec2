# MCP Authorization, section 5 Client Registration: what the registration
# endpoint of RFC 7591 (sections 2, 3 and 3.2.1) and OAuth 2.1 (draft 13)
# section 8.1.1 ask of the authorization server that offers it.
@needs-authorization
Feature: authorization.5 Registration endpoint and response
  The registration endpoint takes a registration without an initial access
  token, ignores metadata it does not understand, returns what it
  registered, gives another client another client_id, keeps a native client
  that asked for none without a secret, and says when a secret it issued
  expires.

  Background:
    Given the authorization server's metadata, found the way a client finds it

  # RFC 7591 3: "the client registration endpoint SHOULD allow registration
  # requests with no authorization (which is to say, with no initial access
  # token in the request)."
  @REG-13 @id:registration-endpoint-allows-registration-without-initial-access-token
  Scenario: The registration endpoint takes a registration without an initial access token
    When a public client registers at the advertised registration_endpoint with the profile's redirect_uri
    Then the registration is allowed without an initial access token

  # RFC 7591 3.2.1: "the authorization server MUST return all registered
  # metadata about the client".
  @REG-10 @id:registration-response-returns-redirect-uris-registered
  Scenario: The registration response returns the redirect URIs registered
    When a public client registers at the advertised registration_endpoint with the profile's redirect_uri
    And that the registration answers 201 with a client_id
    Then the registration returns the redirect_uris registered

  # RFC 7591 3.2.1: client_secret_expires_at is "REQUIRED if "client_secret"
  # is issued."
  @REG-11 @id:registration-issuing-secret-says-when-it-expires
  Scenario: A registration that issues a client secret says when it expires
    When a public client registers at the advertised registration_endpoint with the profile's redirect_uri
    And that the registration answers 201 with a client_id
    Then the registration carries client_secret_expires_at, if it issued a client_secret

  # OAuth 2.1 8.1.1: "it is NOT RECOMMENDED for authorization servers to
  # require client authentication of public native apps clients using a
  # shared secret".
  @REG-8 @id:native-client-asking-none-stays-public
  Scenario: A native client that asks for no client authentication is registered public
    When a public client registers at the advertised registration_endpoint with the profile's redirect_uri
    And that the registration answers 201 with a client_id
    Then the registration keeps a native client that asked for no client authentication public

  # RFC 7591 3.2.1: the client_id "SHOULD NOT be currently valid for any
  # other registered client". The second registration differs in its
  # redirect_uris: it is no instance of the first client.
  @REG-9 @id:registrations-other-metadata-get-other-client-ids
  Scenario: A registration with other metadata gets another client_id
    Given a public client registered with the authorization server
    When a public client registers at the advertised registration_endpoint with the profile's redirect_uri on another path
    And that the registration answers 201 with a client_id
    Then the registration names a client_id other than the first client's

  # RFC 7591 2: "The authorization server MUST ignore any client metadata
  # sent by the client that it does not understand".
  @REG-12 @id:registration-ignores-metadata-it-does-not-understand
  Scenario: Registration ignores metadata it does not understand
    Given the authorization server registers a public client with the profile's redirect_uri at the advertised registration_endpoint
    When a public client registers at the advertised registration_endpoint with the profile's redirect_uri and a metadata field no specification defines
    Then the registration is accepted, with a client_id
