# Source section 4: the /mcp endpoint.
Feature: 4 The JSON-RPC endpoint
  POST {base}/mcp answers initialize, tools/list, resources/list, prompts/list
  and tools/call with a JSON-RPC result. Tool names are resolved only after
  the method and credential checks. GET {base}/.well-known/mcp.json tells that
  a host is reachable; its body is not specified, so only that it answers is
  checked.

  @id:anonymous-answers-json-rpc-result
  Scenario Outline: An anonymous <method> answers with a JSON-RPC result
    Given an anonymous caller
    When the caller sends "<method>"
    Then the HTTP status is 200
    And the reply carries a JSON-RPC result

    @EP-1 @AUTH-3
    Examples:
      | method         |
      | initialize     |
      | tools/list     |
      | resources/list |
      | prompts/list   |

  @EP-1 @AUTH-3 @id:anonymous-tools-call-allowlisted-tool-answers-json
  Scenario: An anonymous tools/call of an allowlisted tool answers with a JSON-RPC result
    Given an anonymous caller allowed to call {tools.read}
    When the caller calls {tools.read} on {paths.open}
    Then the HTTP status is 200
    And the reply carries a JSON-RPC result
    And the tool result is not an error

  @EP-7 @AUTH-4 @AUTH-5 @id:tool-name-not-looked-up-before-method
  Scenario: A tool name is not looked up before the method and credential checks
    Given an anonymous tools/list answers 200 with a JSON-RPC result
    And an anonymous caller
    When the caller calls {tools.write} on {paths.writable}
    Then the HTTP status is 401
    And the reply is remembered as "privileged"
    When the caller calls a tool name that tools/list does not show
    Then the HTTP status is 401
    And the reply is the same as "privileged" in status, challenge and body

  @SVC-7 @EP-5 @id:discovery-document-answers
  Scenario: The discovery document answers
    When a client fetches {base}/.well-known/mcp.json
    Then the HTTP status is 200
