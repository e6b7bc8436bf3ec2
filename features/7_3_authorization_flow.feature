# Source section 7.3: authorization-flow failures (with sections 2 and 4).
Feature: 7.3 Authorization-flow failures
  A client registers at POST /oauth/register with redirect_uris, each of them
  https, an RFC 8252 loopback http address, or a private-use scheme, and
  receives a client_id to keep. POST /oauth/token supports the device_code,
  authorization_code and refresh_token grants. The source calls the device
  grant "device_code"; RFC 8628 names it
  urn:ietf:params:oauth:grant-type:device_code. A host may take either: the
  suite sends the name the authorization server metadata advertises in
  grant_types_supported, else the URN, and "device_code" when the URN is
  answered unsupported_grant_type. Every authorization-flow
  failure answers HTTP 400 with a JSON body whose "error" is an RFC 6749 error
  code and whose "error_description" is a string:

  - register without redirect_uris: invalid_redirect_uri, "Missing redirect_uris"
  - register with an unsupported scheme: invalid_redirect_uri, a description
    beginning "redirect_uris must be https, RFC 8252 loopback http, or a
    private-use scheme"
  - token with an unknown or expired device_code: invalid_grant, "Invalid or
    expired device_code"
  - token with any other grant type: unsupported_grant_type, a description
    saying only device_code, authorization_code and refresh_token are supported

  @OAUTH-1 @OAUTH-2 @RES-1 @RES-4 @id:registration-without-redirect-uris-refused
  Scenario: A registration without redirect_uris is refused
    When a client registers without redirect_uris
    Then the OAuth reply is HTTP 400 with error "invalid_redirect_uri" and description "Missing redirect_uris"

  @id:registration-unsupported-redirect-uri-refused
  Scenario Outline: A registration with an unsupported redirect URI is refused: <kind>
    When a client registers with redirect_uris ["<uri>"]
    Then the OAuth reply is HTTP 400 with error "invalid_redirect_uri" and a description beginning "redirect_uris must be https, RFC 8252 loopback http, or a private-use scheme"

    @OAUTH-1 @OAUTH-3 @EP-6 @RES-4
    Examples:
      | kind                  | uri                     |
      | http off the loopback | http://app.example/cb   |
      | ftp                   | ftp://app.example/cb    |
      | javascript            | javascript:alert(1)     |
      | a relative reference  | /relative/cb            |

  # Source 4, rule 1: every entry must be one of the three kinds, so one
  # unsupported entry after a supported one is refused as it is alone.
  @OAUTH-3 @EP-6 @id:registration-refused-when-any-one-redirect-uris
  Scenario: A registration is refused when any one of its redirect URIs is unsupported
    When a client registers with redirect_uris ["https://app.example/cb", "http://app.example/cb"]
    Then the OAuth reply is HTTP 400 with error "invalid_redirect_uri" and a description beginning "redirect_uris must be https, RFC 8252 loopback http, or a private-use scheme"

  @id:registration-supported-redirect-uri-returns-client-id
  Scenario Outline: A registration with a supported redirect URI returns a client_id: <kind>
    When a client registers with redirect_uris ["<uri>"]
    Then the registration succeeds with a client_id

    @RES-1 @EP-2 @EP-6
    Examples:
      | kind                     | uri                       |
      | https                    | https://app.example/cb    |
      | IPv4 loopback http       | http://127.0.0.1:8765/cb  |
      | IPv6 loopback http       | http://[::1]:8765/cb      |
      | a private-use scheme     | com.example.app:/cb       |

  @OAUTH-1 @OAUTH-4 @EP-3 @RES-4 @id:unknown-device-code-refused-invalid-grant
  Scenario: An unknown device_code is refused as invalid_grant
    Given a registered client
    When the client exchanges the device code "conform-unknown-device-code"
    Then the OAuth reply is HTTP 400 with error "invalid_grant" and description "Invalid or expired device_code"

  @id:any-other-grant-type-refused-unsupported
  Scenario Outline: Any other grant type is refused as unsupported: <grant>
    Given a registered client
    When the client requests a token with grant_type "<grant>"
    Then the OAuth reply is HTTP 400 with error "unsupported_grant_type" and a description naming "device_code", "authorization_code" and "refresh_token"

    @OAUTH-1 @OAUTH-5 @EP-3 @RES-4
    Examples:
      | grant                                       |
      | password                                    |
      | client_credentials                          |
      | urn:ietf:params:oauth:grant-type:jwt-bearer |

  @id:token-endpoint-supports-grant
  Scenario Outline: The token endpoint supports the <grant> grant
    Given a registered client
    When the client requests a token with grant_type "<grant>"
    Then the OAuth error is not "unsupported_grant_type"

    @EP-3
    Examples:
      | grant              |
      | authorization_code |
      | refresh_token      |

  @OAUTH-8 @id:authorization-flow-errors-served-json
  Scenario: Authorization-flow errors are served as JSON
    When a client registers without redirect_uris
    Then the OAuth reply is served as JSON
    Given a registered client
    When the client exchanges the device code "conform-unknown-device-code"
    Then the OAuth reply is served as JSON
