package oauth

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
)

// maxBody bounds every request body this server reads. OAuth requests are a
// few hundred bytes; the bound keeps a hostile client from making the server
// buffer without limit.
const maxBody = 64 << 10

// readForm reads the application/x-www-form-urlencoded body that RFC 6749
// (appendix B) and RFC 8628 section 3.1 prescribe for the token and device
// authorization endpoints. Every failure is the client's and answers
// invalid_request, never a server error.
func readForm(w http.ResponseWriter, r *http.Request) (url.Values, *oauthError) {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "application/x-www-form-urlencoded" {
		return nil, badRequest(errInvalidRequest, "Content-Type must be application/x-www-form-urlencoded")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
			return nil, badRequest(errInvalidRequest, "Request body too large")
		}
		return nil, badRequest(errInvalidRequest, "Could not read the request body")
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, badRequest(errInvalidRequest, "Malformed form body")
	}
	// RFC 6749 section 3.2: "Request and response parameters MUST NOT be
	// included more than once."
	for name, values := range form {
		if len(values) > 1 {
			if !plainName(name) {
				return nil, badRequest(errInvalidRequest, "A parameter is repeated")
			}
			return nil, badRequest(errInvalidRequest, "Parameter "+name+" is repeated")
		}
	}
	return form, nil
}

// plainName reports whether a parameter name may be echoed in an
// error_description, whose characters RFC 6749 section 5.2 restricts.
func plainName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
