# Source section 7.1: two shapes of failure.
Feature: 7.1 Two shapes of failure
  A call refused by gate 1 or 2 answers HTTP 4xx with no JSON-RPC result: it
  never reached a tool. A call that reached the tool and failed answers HTTP
  200 with isError true. A 200 is not success: every tools/call result is
  judged by result.isError. A call reaches a tool only if the tool exists:
  an answer of 200 is judged as the tool's only when tools/list names the
  tool to the caller, or an anonymous call of an unknown name answers the 401
  (source 5.5), so a host that does not know the tool never passes these.

  @SHAPE-1 @AUTH-6 @id:call-refused-gates-never-reaches-tool
  Scenario: A call refused at the gates never reaches a tool
    Given an anonymous caller
    When the caller calls {tools.write} on {paths.writable}
    Then the HTTP status is a 4xx
    And the reply carries no JSON-RPC result

  @SHAPE-2 @SHAPE-3 @AUTH-6 @id:call-refused-path-policy-answers-200-iserror
  Scenario: A call refused by the path policy answers 200 with isError true
    Given a caller allowed to call {tools.read}
    When the caller calls {tools.read} on {paths.closed}
    Then the HTTP status is 200
    And the reply carries a JSON-RPC result
    And the tool result is an error

  @SHAPE-2 @AUTH-6 @DIAG-5 @needs-credential @id:call-refused-provider-answers-200-iserror-true
  Scenario: A call refused by the provider answers 200 with isError true
    Given a caller with the target's credential
    When the caller attempts the operation {paths.unsupported.operation} on {paths.unsupported.path}
    Then the HTTP status is 200
    And the tool result is an error
    And the tool result text gives an error code, then the path {paths.unsupported.path}, then an explanation

  @SVC-4 @DIAG-5 @id:operation-provider-lacks-absent-from-afs-stat
  Scenario: An operation the provider lacks is absent from afs_stat's capabilities
    Given a caller allowed to call {tools.stat}
    When the caller calls {tools.stat} on {paths.unsupported.path}
    Then the tool result is not an error
    And the capabilities do not include "{paths.unsupported.operation}"
