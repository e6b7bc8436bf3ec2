# Source section 5, rule 1, the client's side.
Feature: 5.1 Where the client presents its credential
  "Credentials are presented in the Authorization header."

  @CLI-24 @id:client-presents-credential-in-header
  Scenario: The client presents its credential in the Authorization header and nowhere else
    Given a scripted server that behaves as the source document says
    And the client is asked to call a tool
    When the client is run
    Then the credential was sent only in the Authorization header
    And the client made an authorized call
