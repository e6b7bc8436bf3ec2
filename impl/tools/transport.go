package tools

import (
	"mime"
	"net/http"
	"strings"
)

// acceptJSON lets through clients that accept a JSON reply. The SDK's
// handler insists on an Accept header listing both application/json and
// text/event-stream, yet with JSONResponse it only ever answers
// application/json. RFC 9110 12.5.1: a request without Accept accepts any
// media type, so such a request, or one that accepts JSON, is served as if
// it had listed both.
func acceptJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if acceptsJSON(r.Header.Values("Accept")) {
			r.Header.Set("Accept", "application/json, text/event-stream")
		}
		next.ServeHTTP(w, r)
	})
}

func acceptsJSON(values []string) bool {
	if len(values) == 0 {
		return true
	}
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(item))
			if err != nil || params["q"] == "0" {
				continue
			}
			switch mt {
			case "application/json", "application/*", "*/*":
				return true
			}
		}
	}
	return false
}
