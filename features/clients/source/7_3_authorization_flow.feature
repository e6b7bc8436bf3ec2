# Source section 7.3, the client's side: registration and the device grant,
# against a host that approves each user code as soon as it is issued.
Feature: 7.3 Authorization-flow failures, the client's side
  "Registration is rate limited per source address. A client that registers
  at every start is eventually throttled. A client registers once and keeps
  its client_id." "invalid_grant on a device code most often means the
  five-minute window has expired. The remedy is to restart the flow."

  # The credential is revoked between the starts, so that the second start
  # must sign in again, which it does with the client_id it kept.
  @CLI-16 @id:client-registers-once
  Scenario: The client registers once and keeps its client_id for its next start
    Given a scripted server that behaves as the source document says
    And the client is asked to call a tool
    When the client is run
    And the scripted server revokes every credential it issued
    And the client is run again
    Then the second start registered no client and used the client_id of the first

  @CLI-18 @id:client-restarts-device-flow-on-invalid-grant
  Scenario: After invalid_grant on its device code the client starts the device flow again
    Given a scripted server that refuses the first device code with invalid_grant
    And the client is asked to call a tool
    When the client is run
    Then the client started the device flow again after invalid_grant
    And the client made an authorized call
