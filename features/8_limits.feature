# Source section 8 (with 7.3): limits. This feature runs last: it spends the
# per-address registration allowance that every other feature relies on.
Feature: 8 Limits
  Registration is rate limited per source address: a client that registers at
  every start is eventually throttled. A client registers once and keeps its
  client_id. The numeric limit and the throttled response are not specified,
  so the suite sends at most registration_limit registrations (a profile key)
  and counts any 4xx after an accepted registration as the throttle.

  @OAUTH-6
  Scenario: A client that registers at every start is eventually throttled
    Given a registered client
    When a client registers repeatedly, at most {registration_limit} times, until refused
    Then a registration was refused

  @OAUTH-7
  Scenario: A client that registered once keeps its client_id once the address is throttled
    Given a registered client
    When a client registers repeatedly, at most {registration_limit} times, until refused
    Then the registered client still works
