# Source section 7.1, the client's side: a credentialed call that reaches
# the tool and fails there (gate 3, a path the host has not opened) is an
# HTTP 200 whose result has isError true.
Feature: 7.1 Two shapes of failure, the client's side
  "A 200 is not success. Every tools/call result must be checked for
  result.isError."

  @CLI-17 @id:client-fails-on-is-error
  Scenario: A client run to call a tool whose result is isError true ends with a failure status
    Given a scripted server that behaves as the source document says
    And the client is asked to call a tool whose result is an error
    When the client is run
    Then the client exited with a failure status
