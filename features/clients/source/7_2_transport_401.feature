# Source section 7.2, the client's side: a client calls a privileged tool
# anonymously, and conform, playing the host, answers 401 with the challenge.
Feature: 7.2 Transport failure: 401 on /mcp, the client's remedy
  The challenge's resource_metadata is {base}/.well-known/oauth-protected-resource,
  and for an anonymous call to a privileged tool the remedy is "Follow the
  challenge and authorize the client".

  @CLI-15 @id:client-follows-401-challenge
  Scenario: After a 401 the client follows the challenge to the protected resource metadata
    Given a scripted server that behaves as the source document says
    And the client is asked to call a tool
    When the client is run
    Then the client followed the challenge to {base}/.well-known/oauth-protected-resource
    And the client made an authorized call
