# Source section 7.4: in-call failures (HTTP 200, isError true).
Feature: 7.4 In-call failures
  A call that reached the tool and failed answers HTTP 200 with isError true,
  and its text is an error code, then the path, then an explanation. A path
  the host has not opened to network clients answers AFS_FORBIDDEN, for every
  caller, owner included. A path that does not exist answers AFS_NOT_FOUND.

  @id:closed-path-caller-method-allowlist-admits-answers
  Scenario Outline: A <operation> of a closed path by a caller the method allowlist admits answers AFS_FORBIDDEN
    Given a caller allowed to perform <operation>
    When the caller attempts the operation <operation> on <path>
    Then the HTTP status is 200
    And the tool result is an error
    And the tool result text is "AFS_FORBIDDEN: Forbidden at <path>: network clients <explanation>"
    And the tool result text gives an error code, then the path <path>, then an explanation

    @AFS-2 @RES-3 @DIAG-4
    Examples: read
      | operation | path               | explanation                                                          |
      | read      | {paths.closed}     | cannot read base paths; declare a networkRead rule or use an overlay |

    @AFS-3 @RES-3 @DIAG-4
    Examples: list
      | operation | path               | explanation                                                          |
      | list      | {paths.closed_dir} | cannot list base paths; declare a networkRead rule or use an overlay |

    @AFS-4 @RES-3 @DIAG-4
    Examples: stat
      | operation | path               | explanation                                                          |
      | stat      | {paths.closed}     | cannot stat base paths; declare a networkRead rule or use an overlay |

  @needs-credential @id:owner-s-closed-path-answers-same-afs
  Scenario Outline: The owner's <operation> of a closed path answers the same AFS_FORBIDDEN
    Given a caller with the target's credential
    When the caller attempts the operation <operation> on <path>
    Then the HTTP status is 200
    And the tool result is an error
    And the tool result text is "AFS_FORBIDDEN: Forbidden at <path>: network clients <explanation>"

    @AFS-1 @AFS-5 @AUTH-7 @DIAG-4
    Examples: write
      | operation | path               | explanation                                                          |
      | write     | {paths.closed}     | cannot write base paths; use a resolver overlay or internal code     |

    @AFS-2 @AFS-5 @AUTH-7 @DIAG-4
    Examples: read
      | operation | path               | explanation                                                          |
      | read      | {paths.closed}     | cannot read base paths; declare a networkRead rule or use an overlay |

    @AFS-3 @AFS-5 @AUTH-7 @DIAG-4
    Examples: list
      | operation | path               | explanation                                                          |
      | list      | {paths.closed_dir} | cannot list base paths; declare a networkRead rule or use an overlay |

    @AFS-4 @AFS-5 @AUTH-7 @DIAG-4
    Examples: stat
      | operation | path               | explanation                                                          |
      | stat      | {paths.closed}     | cannot stat base paths; declare a networkRead rule or use an overlay |

  @id:path-does-not-exist-answers-afs-not
  Scenario Outline: A <operation> of a path that does not exist answers AFS_NOT_FOUND
    Given a caller allowed to perform <operation>
    When the caller attempts the operation <operation> on {paths.missing}
    Then the HTTP status is 200
    And the tool result is an error
    And the tool result text is "AFS_NOT_FOUND: Path not found: {paths.missing}"

    @AFS-6
    Examples:
      | operation |
      | read      |
      | stat      |

  @AFS-8 @id:listing-parent-tells-missing-path-from-missing
  Scenario: Listing the parent tells a missing path from a missing provider
    Given a caller allowed to call {tools.read} and {tools.list}
    When the caller calls {tools.read} on {paths.missing}
    Then the tool result is an error
    When the caller calls {tools.list} on {paths.open_dir}
    Then the tool result is not an error
    And the listing does not name the last segment of {paths.missing}
