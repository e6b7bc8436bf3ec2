# MCP Authorization, sections 3 and 5 Client Registration (RFC 7591; OAuth
# Client ID Metadata Documents).
@needs-authorization
Feature: authorization.5 Client registration
  Authorization servers should support Client ID Metadata Documents and say
  so in their metadata; one that names a registration_endpoint registers a
  public client that sends its redirect_uris.

  Background:
    Given the authorization server's metadata, found the way a client finds it

  @REG-1 @id:authorization-server-advertises-client-id-metadata-documents
  Scenario: The authorization server advertises Client ID Metadata Documents
    Then the authorization server metadata's client_id_metadata_document_supported is true

  @REG-2 @id:advertised-registration-endpoint-registers-public-client
  Scenario: The advertised registration endpoint registers a public client
    When a public client registers at the advertised registration_endpoint with the profile's redirect_uri
    Then the registration answers 201 with a client_id

  @REG-4 @id:registration-refuses-redirect-uri-neither-localhost-nor
  Scenario: Registration refuses a redirect URI that is neither localhost nor HTTPS
    Given the authorization server registers a public client with the profile's redirect_uri at the advertised registration_endpoint
    When a public client registers at the advertised registration_endpoint with the redirect_uri "http://redirect.conform.invalid/callback"
    Then the registration is refused

  @REG-5 @id:registration-refuses-redirect-uri-fragment
  Scenario: Registration refuses a redirect URI with a fragment
    Given the authorization server registers a public client with the profile's redirect_uri at the advertised registration_endpoint
    When a public client registers at the advertised registration_endpoint with the profile's redirect_uri and a fragment
    Then the registration is refused
