# Source section 5: authentication.
Feature: 5 Authentication
  Credentials travel in the Authorization header and are bound to the host
  instance that issued them. Anonymous callers may use only initialize,
  tools/list, resources/list, prompts/list, and tools/call for allowlisted
  tools: every other method is the 401, whatever it is. Gates run in order:
  method allowlist, credential, path policy, provider. A credential never
  changes the path policy, and only the host's own declaration opens a path.

  Which tools/call names are on the anonymous allowlist is not shown: the
  profile says (tools.allowlisted, tools.privileged). Notifications such as
  notifications/initialized are no calls and get no reply; they are not
  checked.

  @AUTH-1 @needs-credential @id:credential-authorization-header-admits-privileged-tool
  Scenario: A credential in the Authorization header admits a privileged tool
    Given a caller with the target's credential
    When the caller calls {tools.write} on {paths.writable}
    Then the HTTP status is 200
    And the tool result is not an error

  @AUTH-2 @T401-7 @needs-peer @id:credential-issued-different-host-instance-rejected
  Scenario: A credential issued by a different host instance is rejected
    Given a caller with a credential issued by the peer
    When the caller sends "tools/list"
    Then the HTTP status is 401
    And the reply carries no JSON-RPC result

  @id:anonymous-method-off-allowlist-answers-401
  Scenario Outline: An anonymous method off the allowlist answers 401: <method>
    Given an anonymous tools/list answers 200 with a JSON-RPC result
    And an anonymous caller
    When the caller sends "<method>"
    Then the HTTP status is 401
    And the reply carries no JSON-RPC result

    @AUTH-3 @T401-6
    Examples:
      | method                 |
      | ping                   |
      | server/discover        |
      | completion/complete    |
      | resources/read         |
      | prompts/get            |
      | logging/setLevel       |
      | conform/no-such-method |

  # Source 5.3 fixes which methods an anonymous caller may use, not how a host
  # refuses one inside a JSON-RPC batch: it may refuse the whole batch, answer
  # each request on its own, or refuse batches altogether (MCP 2025-06-18
  # removed them). Only what the refused call leaves undone is judged: no
  # result for it, and the file it would write unchanged. The marker written
  # first, and read back, shows that the run can see a write.
  @AUTH-3 @needs-credential @id:anonymous-batch-cannot-carry-privileged-call-behind @serial
  Scenario: An anonymous batch cannot carry a privileged call behind an allowed one
    Given a caller with the target's credential
    When the caller writes a fresh marker to {paths.writable}
    And the caller calls {tools.read} on {paths.writable}
    # The control: reading back shows what a write did, so the run can see it.
    Given that the tool result shows the marker
    Given an anonymous caller
    When the caller posts to /mcp with Content-Type "application/json":
      """
      [{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}},
       {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"{tools.write}","arguments":{"path":"{paths.writable}","content":"smuggled by the conformance suite\n"}}}]
      """
    Then the reply carries no JSON-RPC result for the request with id 2
    Given a caller with the target's credential
    When the caller calls {tools.read} on {paths.writable}
    Then the tool result still shows the marker and not "smuggled by the conformance suite"

  # A request whose params name a tool twice (RFC 8259 4: names SHOULD be
  # unique, and parsers differ on which one counts) must not let the gate
  # read one name and the tool dispatch the other. The host may refuse the
  # request or call either tool; only an anonymous write is a departure.
  @id:anonymous-call-naming-two-tools-cannot-reach @serial
  Scenario Outline: An anonymous call naming two tools cannot reach the privileged one: <order>
    Given a caller with the target's credential
    When the caller writes a fresh marker to {paths.writable}
    And the caller calls {tools.read} on {paths.writable}
    # The control: reading back shows what a write did, so the run can see it.
    Given that the tool result shows the marker
    Given an anonymous caller allowed to call {tools.read}
    When the caller posts to /mcp with Content-Type "application/json":
      """
      {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"<first>","name":"<second>","arguments":{"path":"{paths.writable}","content":"smuggled by the conformance suite\n"}}}
      """
    Given a caller with the target's credential
    When the caller calls {tools.read} on {paths.writable}
    Then the tool result still shows the marker and not "smuggled by the conformance suite"

    @AUTH-3 @AUTH-4 @needs-credential
    Examples:
      | order                 | first         | second        |
      | the allowed one first | {tools.read}  | {tools.write} |
      | the allowed one last  | {tools.write} | {tools.read}  |

  @AUTH-3 @T401-5 @id:anonymous-call-privileged-tool-answers-401
  Scenario: An anonymous call to a privileged tool answers 401
    Given an anonymous tools/list answers 200 with a JSON-RPC result
    And an anonymous caller
    When the caller calls {tools.write} on {paths.writable}
    Then the HTTP status is 401
    And the reply carries no JSON-RPC result

  @AUTH-3 @T401-5 @id:every-privileged-tool-profile-names-answers-401
  Scenario: Every privileged tool the profile names answers 401 to an anonymous caller
    Given an anonymous caller
    Then every privileged tool answers 401 when called on {paths.writable}

  @AUTH-3 @EP-1 @id:every-allowlisted-tool-profile-names-reaches-tool
  Scenario: Every allowlisted tool the profile names reaches the tool for an anonymous caller
    Given an anonymous caller
    Then every allowlisted tool answers with a JSON-RPC result when called on {paths.open}

  @AUTH-5 @id:every-tool-anonymous-tools-list-shows-answers
  Scenario: Every tool anonymous tools/list shows answers a result or the 401
    Given an anonymous caller
    Then every tool the profile names that anonymous tools/list shows answers with a JSON-RPC result or the 401

  # Derived, not stated: source 5.5 tells how to read tools/list, and the
  # diagnosis order (7.5) reaches step 3 for an anonymous caller only when
  # the host lists its privileged tools. A SHOULD: it decides the exit code
  # only with --strict.
  @AUTH-9 @id:name-seen-tools-list-answers-401-privileged
  Scenario: A name seen in tools/list that answers 401 is a privileged tool (derived: anonymous tools/list names the privileged tools)
    Given an anonymous caller
    When the caller sends "tools/list"
    Then tools/list names {tools.write}
    When the caller calls {tools.write} on {paths.writable}
    Then the HTTP status is 401

  # Source 5.1: credentials are presented in the Authorization header, so
  # one in the URI query string (RFC 6750's access_token form) is no
  # credential; how the host refuses the call is not judged beyond that.
  @AUTH-1 @needs-credential @id:credential-uri-query-string-gives-no-more @serial
  Scenario: A credential in the URI query string gives no more than no credential
    Given a caller with the target's credential
    When the caller writes a fresh marker to {paths.writable}
    Given an anonymous caller
    When the caller calls {tools.write} on {paths.writable} with the target's credential in the URI query string, not in the Authorization header
    Then the HTTP status is a 4xx
    And the reply carries no JSON-RPC result

  @id:credential-does-not-close-path-host-opened
  Scenario Outline: A credential does not close a path the host opened: <operation>
    Given a caller with the target's credential
    When the caller attempts the operation <operation> on <path>
    Then the HTTP status is 200
    And the tool result is not an error

    @AUTH-7 @needs-credential
    Examples:
      | operation | path             |
      | read      | {paths.open}     |
      | list      | {paths.open_dir} |
      | stat      | {paths.open}     |

  @AUTH-6 @id:method-allowlist-decided-before-path-policy
  Scenario: The method allowlist is decided before the path policy
    Given an anonymous caller
    When the caller calls {tools.write} on {paths.closed}
    Then the HTTP status is 401
    And the reply carries no JSON-RPC result

  @AUTH-6 @T401-7 @id:credential-decided-before-path-policy
  Scenario: The credential is decided before the path policy
    Given a caller presenting the Authorization header "Bearer conform-unknown-credential-7f3a9"
    When the caller calls {tools.read} on {paths.closed}
    Then the HTTP status is 401
    And the reply carries no JSON-RPC result

  @AUTH-6 @AUTH-7 @needs-credential @id:credential-same-call-reaches-path-policy
  Scenario: With a credential the same call reaches the path policy
    Given a caller with the target's credential
    When the caller calls {tools.write} on {paths.closed}
    Then the HTTP status is 200
    And the tool result is an error
    And the tool result text is "AFS_FORBIDDEN: Forbidden at {paths.closed}: network clients cannot write base paths; use a resolver overlay or internal code"

  # The provider's missing operation is, on most hosts, a privileged write.
  @AUTH-6 @DIAG-4 @needs-credential @id:path-policy-decided-before-provider
  Scenario: The path policy is decided before the provider
    Given a caller allowed to perform {paths.closed_unsupported.operation}
    When the caller attempts the operation {paths.closed_unsupported.operation} on {paths.closed_unsupported.path}
    Then the HTTP status is 200
    And the tool result is an error
    And the tool result text is the AFS_FORBIDDEN of {paths.closed_unsupported.operation} on {paths.closed_unsupported.path}

  @AUTH-6 @AFS-2 @DIAG-4 @id:path-policy-decided-before-provider-looks-path
  Scenario: The path policy is decided before the provider looks the path up
    Given a caller allowed to call {tools.read}
    When the caller calls {tools.read} on {paths.closed_dir}/conform-no-such-file
    Then the HTTP status is 200
    And the tool result is an error
    And the tool result text is "AFS_FORBIDDEN: Forbidden at {paths.closed_dir}/conform-no-such-file: network clients cannot read base paths; declare a networkRead rule or use an overlay"

  @id:no-spelling-closed-path-opens
  Scenario Outline: No spelling of a closed path opens it: <spelling>
    Given a caller allowed to call {tools.read}
    When the caller calls {tools.read} on {paths.closed}
    Then the tool result is an error
    When the caller calls {tools.read} on <path>
    Then the call does not succeed

    @AUTH-10
    Examples:
      | spelling                          | path                                   |
      | a ".." segment from the open dir  | {paths.open_dir}/..{paths.closed}      |
      | a doubled separator               | {paths.closed_dir}//{paths.closed.name} |
      | a "." segment                     | {paths.closed_dir}/./{paths.closed.name} |
      | a trailing slash                  | {paths.closed}/                        |
      | a percent-encoded separator       | {paths.closed_dir}%2F{paths.closed.name} |
      | percent-encoded dots              | {paths.open_dir}/%2e%2e{paths.closed}  |
