# MCP Authorization Server Discovery, section 2 (RFC 9728 sections 3 and
# 5.1), the client's side: conform plays the MCP server and watches where the
# client looks for the protected resource metadata after a 401.
Feature: discovery.2 Protected resource metadata discovery by the client
  "MCP clients MUST support both discovery mechanisms and use the resource
  metadata URL from the parsed WWW-Authenticate headers when present;
  otherwise, they MUST fall back to constructing and requesting the
  well-known URIs in the order listed above."

  @CLI-1 @id:client-uses-challenge-resource-metadata
  Scenario: The client finds the protected resource metadata at the URL the challenge names
    Given a scripted server that names its protected resource metadata only in its challenge
    When the client is run
    Then the client requested the protected resource metadata at the URL the challenge named
    And the client made an authorized call

  @CLI-2 @id:client-tries-well-known-uris-in-order
  Scenario: Without resource_metadata in the challenge, the client tries the well-known URIs in the listed order
    Given a scripted server that names no resource_metadata in its challenge
    When the client is run
    Then the client requested the protected resource metadata at the well-known URIs in the specification's order

  # RFC 9728 3.3: the metadata's resource must be the URL the client
  # requested; "If these values are not identical, the data contained in the
  # response MUST NOT be used."
  @CLI-29 @id:client-refuses-metadata-of-another-resource
  Scenario: The client does not use protected resource metadata that names another resource
    Given the client has completed the flow against a compliant server in this run
    And a scripted server that serves protected resource metadata naming another resource
    When the client is run
    Then the client stopped before any request to the authorization server
