package oauth

import (
	"encoding/json"
	"net/http"
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
)

// oauthError is an error answer in the RFC 6749 section 5.2 shape that the
// source document uses for every authorization-flow failure (section 7.3).
type oauthError struct {
	status      int
	Code        string `json:"error"`
	Description string `json:"error_description"`
}

// badRequest is the HTTP 400 answer every authorization-flow failure gets
// (source section 7.3).
func badRequest(code, description string) *oauthError {
	return &oauthError{status: http.StatusBadRequest, Code: code, Description: description}
}

// serverError hides a store failure from the client; the cause is logged.
func serverError() *oauthError {
	return &oauthError{status: http.StatusInternalServerError, Code: errServerError,
		Description: "The server could not complete the request"}
}

func writeError(w http.ResponseWriter, e *oauthError) { writeJSON(w, e.status, e) }

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
