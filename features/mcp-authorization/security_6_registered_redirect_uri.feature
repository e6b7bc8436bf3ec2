# MCP Authorization Security Considerations, section 6 Open Redirection: the
# redirect URI a client registered is the one the response goes to, query
# and all (OAuth 2.1 section 2.3).
@needs-authorization
Feature: security.6 The registered redirect URI, query and all
  A redirect URI may carry a query; the authorization response adds its
  parameters to it and keeps it. A server may refuse to register such a
  redirect URI, and then there is nothing to judge.

  @REDIR-4 @needs-authorization-approval @id:authorization-response-keeps-redirect-uri-query
  Scenario: An authorization response keeps the query of the redirect URI registered with one
    Given a public client whose redirect_uri carries a query registered with the authorization server
    When the client's valid authorization request is approved
    # The control: the request was approved with a code.
    Given that the authorization response carries a code
    # "The redirect URI MAY include an query string component, which MUST be
    # retained when adding additional query parameters" (OAuth 2.1 2.3).
    Then the authorization response keeps the query of the registered redirect_uri
