# Source section 5: authentication.
Feature: 5 Authentication
  Credentials travel in the Authorization header and are bound to the host
  instance that issued them. Anonymous callers may use only initialize,
  tools/list, resources/list, prompts/list, and tools/call for allowlisted
  tools. Gates run in order: method allowlist, credential, path policy,
  provider. A credential never changes the path policy.

  @AUTH-1 @needs-credential
  Scenario: A credential in the Authorization header admits a privileged tool
    Given a caller with the target's credential
    When the caller calls {tools.write} on {paths.writable}
    Then the HTTP status is 200
    And the tool result is not an error

  @AUTH-2 @T401-7 @needs-peer
  Scenario: A credential issued by a different host instance is rejected
    Given a caller with a credential issued by the peer
    When the caller sends "tools/list"
    Then the HTTP status is 401
    And the reply carries no JSON-RPC result

  @AUTH-3 @T401-6
  Scenario Outline: An anonymous method off the allowlist answers 401: <method>
    Given an anonymous tools/list answers 200 with a JSON-RPC result
    And an anonymous caller
    When the caller sends "<method>"
    Then the HTTP status is 401
    And the reply carries no JSON-RPC result

    Examples:
      | method                 |
      | resources/read         |
      | logging/setLevel       |
      | conform/no-such-method |

  @AUTH-3 @T401-5
  Scenario: An anonymous call to a privileged tool answers 401
    Given an anonymous tools/list answers 200 with a JSON-RPC result
    And an anonymous caller
    When the caller calls {tools.write} on {paths.writable}
    Then the HTTP status is 401
    And the reply carries no JSON-RPC result

  @AUTH-3 @T401-5
  Scenario: Every privileged tool the profile names answers 401 to an anonymous caller
    Given an anonymous caller
    Then every privileged tool answers 401 when called on {paths.writable}

  @AUTH-3 @EP-1
  Scenario: Every allowlisted tool the profile names reaches the tool for an anonymous caller
    Given an anonymous caller
    Then every allowlisted tool answers with a JSON-RPC result when called on {paths.open}

  @AUTH-5
  Scenario: A name seen in tools/list that answers 401 is a privileged tool
    Given an anonymous caller
    When the caller sends "tools/list"
    Then tools/list names {tools.write}
    When the caller calls {tools.write} on {paths.writable}
    Then the HTTP status is 401

  @AUTH-6
  Scenario: The method allowlist is decided before the path policy
    Given an anonymous caller
    When the caller calls {tools.write} on {paths.closed}
    Then the HTTP status is 401
    And the reply carries no JSON-RPC result

  @AUTH-6 @AUTH-7 @needs-credential
  Scenario: With a credential the same call reaches the path policy
    Given a caller with the target's credential
    When the caller calls {tools.write} on {paths.closed}
    Then the HTTP status is 200
    And the tool result is an error
    And the tool result text is "AFS_FORBIDDEN: Forbidden at {paths.closed}: network clients cannot write base paths; use a resolver overlay or internal code"
