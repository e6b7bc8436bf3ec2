# Source sections 3 and 8: time rules and limits in time.
Feature: 3 Time windows
  A device code is valid for a five-minute window; after that the token
  endpoint rejects it as invalid_grant, "Invalid or expired device_code". A
  client registration never used in a completed authorization is removed
  after seven days, and the client must register again. A credential from the
  device grant has no expiry.

  Against the in-process reference host the suite moves the host's clock, so
  each window is checked just before and just after its end. Against another
  host the five-minute window is waited in real time when the profile allows
  it (slow: true); the seven-day and thirty-day checks need the host's clock.
  Against any host, a credential the device grant issues here is used again
  at the end of the run (8_limits.feature), and the result says how long it
  was observed to live. A credential still works when the host accepts it:
  a rejected one answers 401 (source 7.2), so an authenticated tools/list
  answering 200 with a result shows it accepted, whatever the role it was
  granted may call.

  @TIME-3 @RES-2 @needs-approval @id:credential-from-device-grant-kept-used-again
  Scenario: A credential from the device grant is kept to be used again at the end of the run
    Given a registered client
    And a device authorization for the registered client
    And the sign-in is approved
    When the client polls the token endpoint
    Then the token response carries an access_token and neither expires_in nor refresh_token
    And the credential just issued is kept for the end of the run
    Given a caller with the credential just issued
    When the caller sends "tools/list"
    Then the HTTP status is 200
    And the reply carries a JSON-RPC result

  @TIME-1 @OAUTH-4 @id:device-code-polled-once-before-anyone-approves
  Scenario: A device code polled at once, before anyone approves it, is still pending
    Given a registered client
    And a device authorization for the registered client
    When the client polls the token endpoint
    Then the device code is still pending: authorization_pending or slow_down, or a credential

  @TIME-1 @OAUTH-4 @needs-time @id:device-code-still-accepted-just-inside-five
  Scenario: A device code is still accepted just inside its five-minute window
    Given a registered client
    And a device authorization for the registered client
    When 4 minutes and 59 seconds pass on the host's clock
    And the client polls the token endpoint
    Then the device code is still pending: authorization_pending or slow_down, or a credential

  @TIME-1 @OAUTH-4 @OAUTH-1 @needs-time @id:device-code-rejected-invalid-grant-just-after
  Scenario: A device code is rejected as invalid_grant just after its five-minute window
    Given a registered client
    And a device authorization for the registered client
    When 5 minutes and 1 second pass on the host's clock
    And the client polls the token endpoint
    Then the OAuth reply is HTTP 400 with error "invalid_grant" and description "Invalid or expired device_code"

  @TIME-2 @needs-clock @id:unused-registration-still-works-just-before-seven
  Scenario: An unused registration still works just before seven days
    Given a newly registered client
    When 6 days 23 hours 59 minutes and 59 seconds pass on the host's clock
    And the client asks for a device authorization
    Then the device authorization succeeds

  @TIME-2 @needs-clock @id:unused-registration-removed-after-seven-days-client
  Scenario: An unused registration is removed after seven days and the client registers again
    Given a newly registered client
    When 7 days and 1 second pass on the host's clock
    And the client asks for a device authorization
    Then the device authorization is refused
    When a client registers with redirect_uris ["http://127.0.0.1:8765/callback"]
    Then the registration succeeds with a client_id
    When the client asks for a device authorization
    Then the device authorization succeeds

  @TIME-2 @needs-clock @needs-approval @id:registration-used-completed-authorization-kept-after-seven
  Scenario: A registration used in a completed authorization is kept after seven days
    Given a newly registered client
    And a device authorization for the registered client
    And the sign-in is approved
    When the client polls the token endpoint
    Then the token response carries an access_token and neither expires_in nor refresh_token
    When 7 days and 1 second pass on the host's clock
    And the client asks for a device authorization
    Then the device authorization succeeds

  @TIME-3 @RES-2 @needs-clock @needs-approval @id:credential-from-device-grant-still-works-after
  Scenario: A credential from the device grant still works after thirty days
    Given a newly registered client
    And a device authorization for the registered client
    And the sign-in is approved
    When the client polls the token endpoint
    Then the token response carries an access_token and neither expires_in nor refresh_token
    Given a caller with the credential just issued
    When 30 days pass on the host's clock
    And the caller sends "tools/list"
    Then the HTTP status is 200
    And the reply carries a JSON-RPC result
