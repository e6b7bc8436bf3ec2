package afs

import (
	"errors"
	"fmt"
)

// Code is the error code that starts an in-call failure's text (source 7.4:
// "the result text is an error code, then the path, then an explanation").
type Code string

// The in-call error codes. AFS_FORBIDDEN and AFS_NOT_FOUND are the source's
// (7.4); AFS_NOT_SUPPORTED is the reference host's gate 4 text (PRODUCT 6);
// the rest are reference choices for failures the source does not show.
const (
	CodeInvalidPath  Code = "AFS_INVALID_PATH"
	CodeForbidden    Code = "AFS_FORBIDDEN"
	CodeNotFound     Code = "AFS_NOT_FOUND"
	CodeNotSupported Code = "AFS_NOT_SUPPORTED"
	CodeExists       Code = "AFS_EXISTS"
	CodeIsDirectory  Code = "AFS_IS_DIRECTORY"
	CodeNotEmpty     Code = "AFS_NOT_EMPTY"
	CodeMountPoint   Code = "AFS_MOUNT_POINT"
	CodeNotRegular   Code = "AFS_NOT_REGULAR"
	CodeIO           Code = "AFS_IO_ERROR"
	CodeQuota        Code = "AFS_QUOTA"
)

// Error is an in-call failure: the tool answers HTTP 200 with isError true
// and Error() as the single text content (source 7.1).
type Error struct {
	// Code is the machine-readable code.
	Code Code
	// Path is the path the failure is about, as the caller gave it when it
	// could not be canonicalised, canonical otherwise.
	Path string
	// Text is the whole message after "CODE: ".
	Text string
}

// Error returns "CODE: text".
func (e *Error) Error() string { return string(e.Code) + ": " + e.Text }

// CodeOf returns the code of err when it is an *Error, or "".
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// forbiddenWhy completes "network clients ..." per operation. Source 7.4
// gives the texts for write, read, list and stat exactly. The others are a
// reference choice: delete and exec change or act on a path, so they read
// like write; search and explain observe it, so they read like read.
var forbiddenWhy = map[Operation]string{
	OpWrite:   "cannot write base paths; use a resolver overlay or internal code",
	OpRead:    "cannot read base paths; declare a networkRead rule or use an overlay",
	OpList:    "cannot list base paths; declare a networkRead rule or use an overlay",
	OpStat:    "cannot stat base paths; declare a networkRead rule or use an overlay",
	OpDelete:  "cannot delete base paths; use a resolver overlay or internal code",
	OpExec:    "cannot exec base paths; use a resolver overlay or internal code",
	OpSearch:  "cannot search base paths; declare a networkRead rule or use an overlay",
	OpExplain: "cannot explain base paths; declare a networkRead rule or use an overlay",
}

// InvalidPath is the failure of a path that cannot be canonicalised.
func InvalidPath(p, why string) *Error {
	return &Error{Code: CodeInvalidPath, Path: p, Text: fmt.Sprintf("Invalid path: %s: %s", p, why)}
}

// Forbidden is gate 3's refusal (source 7.4): the host has not opened the
// path to network clients for op, whatever the credential.
func Forbidden(p string, op Operation) *Error {
	return &Error{Code: CodeForbidden, Path: p, Text: fmt.Sprintf("Forbidden at %s: network clients %s", p, forbiddenWhy[op])}
}

// NotFound is the failure of an opened path that does not exist (source 7.4).
func NotFound(p string) *Error {
	return &Error{Code: CodeNotFound, Path: p, Text: "Path not found: " + p}
}

// NotSupported is gate 4's refusal: the path is open but its provider does
// not implement op (PRODUCT 6).
func NotSupported(p string, op Operation) *Error {
	return &Error{Code: CodeNotSupported, Path: p, Text: fmt.Sprintf("Not supported at %s: the provider does not implement %s", p, op)}
}

func exists(p string) *Error {
	return &Error{Code: CodeExists, Path: p, Text: fmt.Sprintf("Already exists at %s: mode create never replaces a file", p)}
}

func isDirectory(p string, op Operation) *Error {
	return &Error{Code: CodeIsDirectory, Path: p, Text: fmt.Sprintf("Is a directory at %s: %s needs a file", p, op)}
}

func notEmpty(p string) *Error {
	return &Error{Code: CodeNotEmpty, Path: p, Text: fmt.Sprintf("Not empty at %s: delete removes files and empty directories only", p)}
}

func notRegular(p string, op Operation) *Error {
	verb := "replaces"
	if op == OpDelete {
		verb = "removes"
	}
	return &Error{Code: CodeNotRegular, Path: p, Text: fmt.Sprintf("Not a regular file at %s: %s never %s a link or special file the host placed there", p, op, verb)}
}

func mountPoint(p string, op Operation) *Error {
	return &Error{Code: CodeMountPoint, Path: p, Text: fmt.Sprintf("Mount point at %s: %s cannot change the root of a mount", p, op)}
}

// QuotaError is a provider's refusal of a write that would take more than
// its quota allows; Why completes "Over quota at <path>: ".
type QuotaError struct{ Why string }

func (e *QuotaError) Error() string { return "over quota: " + e.Why }

func overQuota(p string, q *QuotaError) *Error {
	return &Error{Code: CodeQuota, Path: p, Text: fmt.Sprintf("Over quota at %s: %s", p, q.Why)}
}

// ioFailure hides the provider's own error text, which for a disk provider
// names host directories a network client has no business seeing.
func ioFailure(p string, op Operation) *Error {
	return &Error{Code: CodeIO, Path: p, Text: fmt.Sprintf("I/O failure at %s: the provider could not complete %s", p, op)}
}

// Provider failures that the FS turns into in-call errors. Providers return
// these (or wrap them) instead of formatting messages, because only the FS
// knows the full path the caller asked for.
var (
	ErrNotExist = errors.New("does not exist")
	ErrExist    = errors.New("already exists")
	ErrIsDir    = errors.New("is a directory")
	ErrNotEmpty = errors.New("directory not empty")
	// ErrNotRegular refuses to write over or delete a symlink, device or
	// named pipe.
	ErrNotRegular = errors.New("not a regular file")
)
