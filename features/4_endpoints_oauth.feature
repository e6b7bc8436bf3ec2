# Source section 4 (with 1, 2 and 5): the authorization endpoints and discovery.
Feature: 4 The authorization endpoints and discovery documents
  POST /oauth/register registers a client and returns its client_id. POST
  /oauth/token exchanges a grant for a credential; the device grant (RFC 8628)
  returns a credential with no expiry and no refresh token, presented in the
  Authorization header and bound to the host instance that issued it.
  GET /.well-known/oauth-protected-resource is the resource metadata the 401
  challenge refers to; its body is not specified, so only that it answers is
  checked.

  Starting a device authorization and recording consent are not specified
  either: the suite uses the profile's oauth.device_authorization endpoint and
  its approval command (or the reference host's consent page in-process).

  @SVC-7 @EP-4 @id:resource-metadata-document-answers
  Scenario: The resource metadata document answers
    When a client fetches {base}/.well-known/oauth-protected-resource
    Then the HTTP status is 200

  @EP-4 @T401-2 @id:resource-metadata-named-401-challenge-answers
  Scenario: The resource metadata named by the 401 challenge answers
    Given an anonymous caller
    When the caller calls {tools.write} on {paths.writable}
    Then the HTTP status is 401
    When a client fetches the resource_metadata named by the challenge
    Then the HTTP status is 200

  @RES-2 @EP-3 @AUTH-1 @needs-approval @id:device-grant-issues-credential-no-expiry-no
  Scenario: The device grant issues a credential with no expiry and no refresh token, accepted in the Authorization header
    Given a registered client
    And a device authorization for the registered client
    And the sign-in is approved
    When the client polls the token endpoint
    Then the token response carries an access_token and neither expires_in nor refresh_token
    Given a caller with the credential just issued
    When the caller calls {tools.write} on {paths.writable}
    Then the HTTP status is 200
    And the tool result is not an error

  @AUTH-2 @RES-2 @needs-peer @id:credential-issuing-instance-accepts-refused-another-instance
  Scenario: A credential its issuing instance accepts is refused by another instance
    Given a caller with a credential issued by the peer
    When the caller sends "tools/list" to the peer
    Then the HTTP status is 200
    When the caller sends "tools/list"
    Then the HTTP status is 401
