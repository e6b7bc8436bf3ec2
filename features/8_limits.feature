# Source section 8 (with 7.3): limits. The probes are tagged @run-last: they
# spend the per-address registration allowance that every other scenario of
# the run relies on, so the runner puts them after all the others.
Feature: 8 Limits
  Registration is rate limited per source address: a client that registers at
  every start is eventually throttled. A client registers once and keeps its
  client_id. The numeric limit and the throttled response are not specified,
  so the suite sends at most registration_limit registrations (a profile key)
  and counts any refusal after an accepted registration as the throttle: 429,
  another 4xx, or 503 with Retry-After.

  @OAUTH-6 @run-last @id:client-registers-every-start-eventually-throttled
  Scenario: A client that registers at every start is eventually throttled
    Given a registered client
    When a client registers repeatedly, at most {registration_limit} times, until refused
    Then a registration was refused

  # Derived, not stated (a SHOULD): source 7.3 tells a client to register
  # once and keep its client_id; that the throttle leaves such a client
  # working is inferred from that advice, not said.
  @OAUTH-7 @run-last @id:client-registered-once-keeps-client-id-once
  Scenario: A client that registered once keeps its client_id once the address is throttled
    Given a registered client
    When a client registers repeatedly, at most {registration_limit} times, until refused
    Then the registered client still works

  # @run-last too: "at its end" is after everything else, the probes included.
  @TIME-3 @RES-2 @needs-approval @run-last @id:credential-kept-from-start-run-still-works
  Scenario: The credential kept from the start of the run still works at its end
    Given a caller with the credential kept from the start of the run
    When the caller sends "tools/list"
    Then the HTTP status is 200
    And the reply carries a JSON-RPC result
    And the result says how long the credential was observed to live
