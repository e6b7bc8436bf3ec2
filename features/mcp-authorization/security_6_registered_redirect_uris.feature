# MCP Authorization Security Considerations, section 6 Open Redirection, and
# the redirect URIs OAuth 2.1 (draft 13) sections 2.3 and 2.3.1 let a client
# register.
@needs-authorization
Feature: security.6 Redirect URIs registration refuses
  A redirect URI is absolute, and a private-use scheme names a domain the
  client controls: a registration of a relative redirect URI, or of a
  private-use scheme without a period, is refused, each judged after the
  same registration with the profile's redirect URI was accepted.

  Background:
    Given the authorization server's metadata, found the way a client finds it

  # OAuth 2.1 2.3: "The redirect URI MUST be an absolute URI as defined by
  # [Section 4.3 of RFC3986]." That registration refuses one is inferred.
  @REG-6 @id:registration-refuses-relative-redirect-uri
  Scenario: Registration refuses a relative redirect URI
    Given the authorization server registers a public client with the profile's redirect_uri at the advertised registration_endpoint
    When a public client registers at the advertised registration_endpoint with the redirect_uri "/callback"
    Then the registration is refused

  # OAuth 2.1 2.3.1: "At a minimum, any private-use URI scheme that doesn't
  # contain a period character (.) SHOULD be rejected."
  @REG-7 @id:registration-refuses-private-use-scheme-without-period
  Scenario: Registration refuses a private-use scheme without a period
    Given the authorization server registers a public client with the profile's redirect_uri at the advertised registration_endpoint
    When a public client registers at the advertised registration_endpoint with the redirect_uri "conformapp:/callback"
    Then the registration is refused
