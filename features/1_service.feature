# Source section 1: what the service does.
Feature: 1 What the service does
  A tool host exposes tools to software agents over JSON-RPC at {base}/mcp.
  Agents discover tools with tools/list and call them with tools/call. Path
  tools list and stat paths; afs_stat reports the operations the provider
  implements. Content tools appear only when the host declares collections.

  Which tools an anonymous caller may call is not shown (source 5), so the
  scenarios about paths call as "a caller allowed to call" the tool: anonymous
  when the profile's tools.allowlisted names it, otherwise with the target's
  credential (the path policy is the same for every caller, source 5.7).

  @SVC-1 @SVC-2 @id:agents-discover-tools-tools-list-base-mcp
  Scenario: Agents discover tools with tools/list at {base}/mcp
    Given a caller allowed to call {tools.list} and {tools.stat}
    When the caller sends "tools/list"
    Then the HTTP status is 200
    And the reply carries a JSON-RPC result
    And tools/list names {tools.list}
    And tools/list names {tools.stat}

  @SVC-2 @SVC-3 @SVC-6 @id:afs-list-lists-children-path-host-opened
  Scenario: afs_list lists the children of a path the host opened
    Given a caller allowed to call {tools.list}
    When the caller calls {tools.list} on {paths.open_dir}
    Then the tool result is not an error
    And the listing names the last segment of {paths.open}

  @SVC-4 @id:afs-stat-reports-operations-provider-implements
  Scenario: afs_stat reports the operations the provider implements
    Given a caller allowed to call {tools.stat}
    When the caller calls {tools.stat} on {paths.open}
    Then the tool result is not an error
    And the capabilities include "stat"

  @id:afs-stat-lists-operation-same-path-has
  Scenario Outline: afs_stat lists an operation the same path has just served: <operation>
    Given a caller allowed to perform <operation>
    When the caller attempts the operation <operation> on <path>
    # A call that succeeded shows that its provider implements the operation.
    Given that the call succeeded
    Given a caller allowed to call {tools.stat}
    When the caller calls {tools.stat} on <path>
    Then the tool result is not an error
    And the capabilities include "<operation>"

    @SVC-4
    Examples:
      | operation | path             |
      | read      | {paths.open}     |
      | list      | {paths.open_dir} |

  @SVC-6 @id:path-host-opened-network-clients-can-read
  Scenario: A path the host opened to network clients can be read
    Given a caller allowed to call {tools.read}
    When the caller calls {tools.read} on {paths.open}
    Then the tool result is not an error

  @SVC-5 @DIAG-2 @id:content-tools-appear-tools-list-exactly-when
  Scenario: Content tools appear in tools/list exactly when collections are declared
    Given an anonymous caller
    When the caller sends "tools/list"
    Then the HTTP status is 200
    And tools/list shows the content tools exactly when the host declares collections
