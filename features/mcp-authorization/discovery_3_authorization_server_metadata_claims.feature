# MCP Authorization Server Discovery, section 3: what the authorization
# server metadata holds (RFC 8414 sections 2 and 3.2; OAuth 2.1 3.1 and 3.2;
# RFC 9207 2).
@needs-authorization
Feature: discovery.3 Authorization server metadata claims
  The metadata a client finds is a JSON object served with HTTP 200 as
  application/json; it omits claims with zero elements; its issuer has no
  query or fragment and its endpoints no fragment; it lists the scopes it
  knows; and it never offers "none" as a signing algorithm for client
  authentication, naming the algorithms when it offers a JWT method.

  Background:
    Given the authorization server's metadata, found the way a client finds it

  # RFC 8414 3.2: "A successful response MUST use the 200 OK HTTP status
  # code and return a JSON object using the "application/json" content type".
  @ASM-5 @id:authorization-server-metadata-served-application-json
  Scenario: The authorization server metadata is a JSON object served as application/json
    Then the authorization server metadata is a JSON object served with HTTP 200 as application/json

  # RFC 8414 3.2: "Claims with zero elements MUST be omitted from the response."
  @ASM-6 @id:authorization-server-metadata-omits-empty-claims
  Scenario: The authorization server metadata omits claims with zero elements
    Then the authorization server metadata holds no empty array

  # RFC 8414 2: the issuer "has no query or fragment components"; OAuth 2.1
  # 3.1: "The authorization endpoint URL MUST NOT include a fragment
  # component"; 3.2, the same of the token endpoint.
  @ASM-4 @id:authorization-server-issuer-endpoints-without-fragment
  Scenario: The authorization server names its issuer without query or fragment, and its endpoints without a fragment
    Then the authorization server metadata names its issuer without query or fragment, and its authorization and token endpoints without a fragment

  # RFC 8414 2: "scopes_supported: RECOMMENDED."
  @ASM-7 @id:authorization-server-metadata-lists-scopes-supported
  Scenario: The authorization server metadata lists scopes_supported
    Then the authorization server metadata lists scopes_supported

  # RFC 8414 2, token_endpoint_auth_signing_alg_values_supported: "This
  # metadata entry MUST be present if either of these authentication methods
  # are specified"; "The value "none" MUST NOT be used."
  @ASM-8 @id:authorization-server-signing-algorithms-never-none
  Scenario: The authorization server never offers none as a client authentication signing algorithm
    Then the authorization server metadata lists token endpoint signing algorithms for its JWT methods, and never none
