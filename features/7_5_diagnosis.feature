# Source section 7.5: diagnosis order.
Feature: 7.5 Diagnosis order
  A failing call is diagnosed in order, stopping at the first step that
  explains it: (1) anonymous tools/list does not return 200: the host is
  unreachable or not this kind of host; (2) the tool is absent from
  tools/list; (3) the call returns 401: gate 1 or gate 2, follow the
  WWW-Authenticate challenge; (4) the call returns 200 with AFS_FORBIDDEN:
  gate 3, the credential is fine and the path is closed to the network;
  (5) afs_stat does not list the operation in capabilities: gate 4. These
  scenarios run the diagnosis against the target: the host's answers must
  lead it to the gate that the profile's paths and tools stand for. Calls
  about paths are diagnosed for a caller allowed to call the tool: anonymous
  when tools.allowlisted names it, otherwise with the target's credential.

  @DIAG-1 @id:diagnosis-call-succeeds-goes-past-step-1
  Scenario: The diagnosis of a call that succeeds goes past step 1 to the end
    When the call of {tools.read} on {paths.open} is diagnosed for a caller allowed to call it
    Then the diagnosis passes step 1
    And the diagnosis finds the call succeeds

  @DIAG-2 @id:diagnosis-tool-host-does-not-list-stops
  Scenario: The diagnosis of a tool the host does not list stops at step 2
    When the call of a tool that tools/list does not show is diagnosed for an anonymous caller
    Then the diagnosis passes step 1
    And the diagnosis stops at step 2 naming no gate

  @DIAG-3 @T401-7 @id:diagnosis-call-rejected-credential-stops-step-3
  Scenario: The diagnosis of a call with a rejected credential stops at step 3 with the challenge
    When the call of {tools.read} on {paths.open} is diagnosed for an unknown credential
    Then the diagnosis stops at step 3 naming gate 1 or 2
    And the diagnosis shows the challenge's resource_metadata "{base}/.well-known/oauth-protected-resource"

  # Derived, not stated (a SHOULD): the diagnosis reaches step 3 for an
  # anonymous caller only when anonymous tools/list names the privileged
  # tool; a host that hides it stops the diagnosis at step 2.
  @AUTH-9 @id:diagnosis-anonymous-privileged-call-stops-step-3
  Scenario: The diagnosis of an anonymous privileged call stops at step 3 with the challenge (derived: anonymous tools/list names the privileged tools)
    When the call of {tools.write} on {paths.writable} is diagnosed for an anonymous caller
    Then the diagnosis stops at step 3 naming gate 1 or 2
    And the diagnosis shows the challenge's resource_metadata "{base}/.well-known/oauth-protected-resource"

  @DIAG-3 @T401-7 @needs-peer @id:diagnosis-call-another-instance-s-credential-stops
  Scenario: The diagnosis of a call with another instance's credential stops at step 3
    When the call of {tools.read} on {paths.open} is diagnosed for a credential issued by the peer
    Then the diagnosis stops at step 3 naming gate 1 or 2
    And the diagnosis shows the challenge's resource_metadata "{base}/.well-known/oauth-protected-resource"

  @DIAG-3 @AUTH-1 @needs-credential @id:diagnosis-same-privileged-call-target-s-credential
  Scenario: The diagnosis of the same privileged call with the target's credential finds it succeeds
    When the call of {tools.write} on {paths.writable} is diagnosed for the target's credential
    Then the diagnosis finds the call succeeds

  @DIAG-4 @id:diagnosis-read-closed-path-stops-step-4
  Scenario: The diagnosis of a read of a closed path stops at step 4
    When the call of {tools.read} on {paths.closed} is diagnosed for a caller allowed to call it
    Then the diagnosis stops at step 4 naming gate 3

  @DIAG-4 @AUTH-7 @needs-credential @id:diagnosis-owner-s-write-closed-path-stops
  Scenario: The diagnosis of the owner's write of a closed path stops at step 4 too
    When the call of {tools.write} on {paths.closed} is diagnosed for the target's credential
    Then the diagnosis stops at step 4 naming gate 3

  @DIAG-5 @needs-credential @id:diagnosis-operation-provider-lacks-stops-step-5
  Scenario: The diagnosis of an operation the provider lacks stops at step 5 naming gate 4
    When the operation {paths.unsupported.operation} on {paths.unsupported.path} is diagnosed for the target's credential
    Then the diagnosis stops at step 5 naming gate 4

  @DIAG-5 @AFS-8 @id:diagnosis-path-does-not-exist-lists-parent
  Scenario: The diagnosis of a path that does not exist lists its parent before concluding
    When the call of {tools.read} on {paths.missing} is diagnosed for a caller allowed to call it, {tools.stat} and {tools.list}
    Then the diagnosis lists the parent of {paths.missing}
    And the diagnosis stops at step 5 naming no gate
