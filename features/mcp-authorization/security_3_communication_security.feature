# MCP Authorization Security Considerations, section 3 Communication
# Security: redirect URIs are localhost or HTTPS.
@needs-authorization
Feature: security.3 Communication security
  The authorization server never sends a code to a redirect URI that is
  plain http on a host that is not loopback. Where registration takes such a
  URI (REG-4 judges that it should not), the rule bites at the authorization
  endpoint, and is judged there with the client that registered it. A
  registration that refuses it leaves the server no such redirect URI, which
  is what the rule asks; without a registration endpoint the run's own
  client names it, unregistered.

  @TLS-3 @needs-authorization-approval @id:authorization-endpoint-redirects-no-code-plain-http
  Scenario: The authorization endpoint redirects no code to a plain http redirect URI on a host that is not loopback
    Given a public client, with a plain http redirect_uri on a host that is not loopback when registration takes one, registered with the authorization server
    # The control: the same client's valid request, at its own redirect URI.
    When the client's valid authorization request is approved
    Given that the authorization response carries a code
    # "All redirect URIs MUST be either localhost or use HTTPS" (security.3).
    When the client sends its authorization request with a plain http redirect_uri on a host that is not loopback
    Then the authorization server refused to register the plain http redirect_uri, or redirects no code to it
