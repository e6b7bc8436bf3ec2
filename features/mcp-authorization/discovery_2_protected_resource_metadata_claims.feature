# MCP Authorization Server Discovery, section 2: what the protected resource
# metadata holds (RFC 9728 sections 2 and 3.2).
@needs-authorization
Feature: discovery.2 Protected resource metadata claims
  The metadata a client finds omits claims with zero elements, names its
  resource without a fragment, with https for the resource and the jwks_uri
  on a host that is not loopback, and lists the scopes the resource knows.
  Each is judged on the document found the way a client finds it, once it is
  a JSON object served with HTTP 200 (PRM-3 judges that).

  Background:
    Given the protected resource metadata, found the way a client finds it, if any
    And that the metadata is a JSON object served with HTTP 200

  # RFC 9728 3.2: "Claims with zero elements MUST be omitted from the response."
  @PRM-6 @id:protected-resource-metadata-omits-empty-claims
  Scenario: The protected resource metadata omits claims with zero elements
    Then the metadata holds no empty array

  # RFC 9728 2: resource is "a URL that uses the https scheme and has no
  # fragment component"; jwks_uri: "This URL MUST use the https scheme".
  @PRM-7 @id:protected-resource-metadata-urls-https-without-fragment
  Scenario: The protected resource metadata names its resource without a fragment, and https on hosts that are not loopback
    Then the metadata's resource has no fragment
    And the metadata's resource and jwks_uri use https unless on a loopback host

  # RFC 9728 2: "scopes_supported: RECOMMENDED."
  @PRM-8 @id:protected-resource-metadata-lists-scopes-supported
  Scenario: The protected resource metadata lists scopes_supported
    Then the metadata lists scopes_supported
