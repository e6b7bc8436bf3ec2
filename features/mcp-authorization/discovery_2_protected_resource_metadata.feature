# MCP Authorization Server Discovery, section 2 (RFC 9728 sections 3 and 5.1).
@needs-authorization
Feature: discovery.2 Protected resource metadata discovery
  A client finds the protected resource metadata through the resource_metadata
  parameter of the 401 challenge, or else at the well-known URI built from the
  MCP endpoint's path, or else at the root well-known URI. The server offers
  at least one of these. What the client finds describes the resource it
  asked about: the resource value is the URL it requested (challenge) or the
  identifier the well-known URI was built from.

  @PRM-2 @PRM-3 @id:protected-resource-metadata-discoverable-through-challenge-well
  Scenario: The protected resource metadata is discoverable through the challenge or a well-known URI
    Given the protected resource metadata, found the way a client finds it
    Then the metadata is a JSON object served with HTTP 200

  @PRM-5 @PRM-3 @id:metadata-named-401-challenge-describes-url-client
  Scenario: The metadata named by the 401 challenge describes the URL the client requested
    Given an anonymous caller
    When the caller sends the request that needs authorization
    # A premise here: TOK-1 judges the status itself.
    Given that the HTTP status is 401
    And the protected resource metadata, found through the challenge's resource_metadata
    Then the metadata is a JSON object served with HTTP 200
    And the metadata's resource is the MCP endpoint's URL

  @PRM-4 @PRM-3 @id:metadata-well-known-uri-describes-resource-uri
  Scenario: The metadata at a well-known URI describes the resource the URI was built from
    Given the protected resource metadata, found at the first well-known URI that serves it, the MCP endpoint's path first
    Then the metadata is a JSON object served with HTTP 200
    And the metadata's resource is the identifier its well-known URI was built from
