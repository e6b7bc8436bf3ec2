# Source section 7.2: transport failure, 401 on /mcp.
Feature: 7.2 Transport failure: 401 on /mcp
  A call refused by the method allowlist or the credential answers 401 with a
  Bearer challenge whose resource_metadata is
  {base}/.well-known/oauth-protected-resource and a JSON body whose error is
  "Unauthorized". The body is the same for every cause.

  # Every scenario starts from the 401 of an anonymous privileged call.
  Background:
    Given an anonymous caller
    And the caller calls {tools.write} on {paths.writable}

  @T401-1 @T401-2 @T401-3 @RES-5 @T401-5 @id:401-anonymous-privileged-call-carries-challenge-body
  Scenario: The 401 for an anonymous privileged call carries the challenge and body
    Then the HTTP status is 401
    And the "WWW-Authenticate" header is a Bearer challenge whose resource_metadata is "{base}/.well-known/oauth-protected-resource"
    And the body is a JSON object whose "error" is "Unauthorized"
    And the reply carries no JSON-RPC result

  @id:rejected-credential-answers-same-401
  Scenario Outline: A rejected credential answers the same 401: <credential>
    Given the reply is remembered as "anonymous privileged call"
    Given a caller presenting the Authorization header "<header>"
    When the caller sends "tools/list"
    Then the HTTP status is 401
    And the "WWW-Authenticate" header is a Bearer challenge whose resource_metadata is "{base}/.well-known/oauth-protected-resource"
    And the body is a JSON object whose "error" is "Unauthorized"
    And the reply is the same as "anonymous privileged call" in status, challenge and body

    @T401-1 @T401-2 @T401-3 @T401-4 @T401-7
    Examples:
      | credential                | header                                  |
      | an unknown bearer token   | Bearer conform-unknown-credential-7f3a9 |
      | an empty bearer token     | Bearer                                  |
      | another scheme            | Basic Y29uZm9ybTpjb25mb3Jt              |
      | a token with no scheme    | conform-unknown-credential-7f3a9        |
      | an empty header           |                                         |

  @T401-4 @T401-6 @id:anonymous-method-off-allowlist-answers-same-401
  Scenario: An anonymous method off the allowlist answers the same 401
    Given the reply is remembered as "anonymous privileged call"
    When the caller sends "conform/no-such-method"
    Then the HTTP status is 401
    And the reply is the same as "anonymous privileged call" in status, challenge and body

  @T401-4 @T401-7 @needs-peer @id:credential-from-another-host-instance-answers-same
  Scenario: A credential from another host instance answers the same 401
    Given the reply is remembered as "anonymous privileged call"
    Given a caller with a credential issued by the peer
    When the caller calls {tools.write} on {paths.writable}
    Then the HTTP status is 401
    And the reply is the same as "anonymous privileged call" in status, challenge and body

  # RFC 6750 3: "The "realm" attribute MUST NOT appear more than once", the
  # same of scope, of error, error_description and error_uri; their values in
  # the characters the section allows.
  @T401-9 @id:401-challenge-names-each-attribute-once
  Scenario: The 401 challenge names each of its attributes at most once, in the characters RFC 6750 allows
    # A premise: T401-1 and T401-5 judge the status.
    Given that the HTTP status is 401
    Then the Bearer challenge names each RFC 6750 attribute at most once, in the characters RFC 6750 allows

  @T401-9 @id:401-challenge-rejected-credential-names-each-attribute-once
  Scenario: The 401 challenge to an unknown credential names each of its attributes at most once, in the characters RFC 6750 allows
    Given a caller presenting the Authorization header "Bearer conform-unknown-credential-7f3a9"
    When the caller sends "tools/list"
    # A premise: T401-7 judges the status.
    Given that the HTTP status is 401
    Then the Bearer challenge names each RFC 6750 attribute at most once, in the characters RFC 6750 allows

  @T401-8 @id:401-body-served-json
  Scenario: The 401 body is served as JSON
    Then the HTTP status is 401
    And the "Content-Type" header begins with "application/json"
