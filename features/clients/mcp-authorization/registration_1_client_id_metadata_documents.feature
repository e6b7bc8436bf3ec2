# MCP Client Registration, section 1 (Client ID Metadata Documents), the
# client's side. The scripted authorization server advertises
# client_id_metadata_document_supported and fetches the document a
# URL-formatted client_id names; conform fetches it too, to judge it. A
# client that never names itself by a document leaves these scenarios not
# applicable (not run).
Feature: registration.1 Client ID metadata documents, when the client uses them
  "The client_id URL MUST use the "https" scheme and contain a path
  component"; "The metadata document MUST include at least the following
  properties: client_id, client_name, redirect_uris"; "Clients MUST ensure
  the client_id value in the metadata matches the document URL exactly";
  "MCP clients SHOULD check for this capability and MAY fall back to
  Dynamic Client Registration or pre-registration if unavailable."

  @CLI-32 @id:client-document-url-https
  Scenario: A client names itself by an https URL with a path when it uses a client ID metadata document
    Given a scripted server that behaves as the specification says
    When the client is run
    Then every client_id the client presented as a URL is an https URL with a path

  @CLI-33 @id:client-document-content
  Scenario: The client ID metadata document holds the client_id that names it, a client_name and redirect_uris
    Given a scripted server that behaves as the specification says
    When the client is run
    Then the document each such client_id names holds that client_id exactly, a client_name and redirect_uris

  # Judged for a client seen naming itself by a document in this run's
  # control, against a server that advertises them.
  @CLI-35 @id:client-checks-document-support
  Scenario: A client names itself by no client ID metadata document when the authorization server does not advertise them
    Given the client has completed the flow against a compliant server in this run
    And a scripted server that does not advertise client ID metadata documents
    When the client is run
    Then the client named itself by no client ID metadata document
