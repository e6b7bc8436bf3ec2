# OAuth 2.1 2.4, 2.4.1, 3.2.1 and 4.3.1 (which MCP Authorization, section
# 3, makes binding), the client's side. The scripted authorization server
# registers every client that registers itself as a public client; only a
# client the profile names as registered beforehand with a secret
# (client.client_id, client.client_secret_env) is confidential, and judged.
Feature: authorization.3 How a confidential client authenticates at the token endpoint
  "Confidential clients MUST authenticate with the authorization server as
  described in [token-endpoint-client-authentication]." "The client MUST
  NOT use more than one authentication method in each request"; in the
  request content, client_id and client_secret are REQUIRED, and they "MUST
  NOT be included in the request URI."

  @CLI-36 @id:confidential-client-authenticates-once
  Scenario: A confidential client authenticates each token request by exactly one method, never in the URI
    Given a scripted server that behaves as the specification says
    When the client is run
    And the scripted server revokes every credential it issued
    And the client is run again
    Then every token request authenticated the client by exactly one method, its secret never in the request URI
