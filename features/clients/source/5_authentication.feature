# Source section 5, the client's side: the host revokes the credential the
# client obtained, and the client meets it at its next start.
Feature: 5 Authentication, the client's side
  "The device grant returns a credential with no expiry and no refresh
  token. When a credential stops working, the client signs in again."

  @CLI-19 @id:client-signs-in-again
  Scenario: When its credential stops working, the client signs in again
    Given a scripted server that behaves as the source document says
    And the client is asked to call a tool
    When the client is run
    And the scripted server revokes every credential it issued
    And the client is run again
    Then the client signed in again after its credential was refused
