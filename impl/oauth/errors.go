package oauth

import (
	"encoding/json"
	"errors"
	"net/http"
	"syscall"
	"time"
)

// Error codes of RFC 6749 section 5.2, RFC 7591 section 3.2.2 and RFC 8628
// section 3.5 that this server answers with.
const (
	errInvalidRequest        = "invalid_request"
	errInvalidClient         = "invalid_client"
	errInvalidGrant          = "invalid_grant"
	errUnauthorizedClient    = "unauthorized_client"
	errUnsupportedGrantType  = "unsupported_grant_type"
	errUnsupportedRespType   = "unsupported_response_type"
	errAccessDenied          = "access_denied"
	errAuthorizationPending  = "authorization_pending"
	errSlowDown              = "slow_down"
	errInvalidRedirectURI    = "invalid_redirect_uri"
	errInvalidClientMetadata = "invalid_client_metadata"
	errTooManyRequests       = "too_many_requests"
	errServerError           = "server_error"
	// errTemporarilyUnavailable is RFC 6749 section 4.1.2.1's.
	errTemporarilyUnavailable = "temporarily_unavailable"
)

// oauthError is an error answer in the RFC 6749 section 5.2 shape that the
// source document uses for every authorization-flow failure (section 7.3).
type oauthError struct {
	status int
	// retryAfter, when set, is sent as Retry-After.
	retryAfter  time.Duration
	Code        string `json:"error"`
	Description string `json:"error_description"`
}

// badRequest is the HTTP 400 answer every authorization-flow failure gets
// (source section 7.3).
func badRequest(code, description string) *oauthError {
	return &oauthError{status: http.StatusBadRequest, Code: code, Description: description}
}

// serverError hides a store failure from the client; the cause is logged.
// A full disk is no fault of the request and passes: it is 503
// temporarily_unavailable with Retry-After (RFC 6749 section 4.1.2.1 names
// the code; RFC 9110 section 15.6.4 the status), never 500 (issue 26 item 5).
func serverError(err error) *oauthError {
	if diskFull(err) {
		return &oauthError{status: http.StatusServiceUnavailable, retryAfter: diskFullRetry,
			Code: errTemporarilyUnavailable, Description: "The server's disk is full; try again later"}
	}
	return &oauthError{status: http.StatusInternalServerError, Code: errServerError,
		Description: "The server could not complete the request"}
}

// failedStatus is the status of a page answering a store failure, as
// serverError decides it; it sets Retry-After on w for a full disk.
func failedStatus(w http.ResponseWriter, err error) int {
	e := serverError(err)
	if e.retryAfter > 0 {
		setRetryAfter(w, e.retryAfter)
	}
	return e.status
}

// diskFull reports whether err is the file system refusing to grow: no
// space, or the user's quota spent.
func diskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// diskFullRetry is the Retry-After of an answer a full disk refused.
const diskFullRetry = time.Minute

func writeError(w http.ResponseWriter, e *oauthError) {
	if e.retryAfter > 0 {
		setRetryAfter(w, e.retryAfter)
	}
	writeJSON(w, e.status, e)
}

// writeJSON answers v as JSON. Every OAuth answer carries a secret or depends
// on one, so none may be cached (RFC 6749 section 5.1, RFC 7591 section 3.2.1).
func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
