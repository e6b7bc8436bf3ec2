// Package wire records the HTTP exchanges the harness has with a target, with
// credentials masked, so that every failure can show exactly what was sent and
// what came back (PRODUCT.md section 5).
package wire

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// Exchange is one HTTP request and its response as the harness saw them.
// Headers and bodies are already masked.
type Exchange struct {
	Method          string              `json:"method"`
	URL             string              `json:"url"`
	RequestHeader   map[string][]string `json:"request_header,omitempty"`
	RequestBody     string              `json:"request_body,omitempty"`
	Status          int                 `json:"status,omitempty"`
	ResponseHeader  map[string][]string `json:"response_header,omitempty"`
	ResponseBody    string              `json:"response_body,omitempty"`
	TransportError  string              `json:"transport_error,omitempty"`
	ResponseTrimmed bool                `json:"response_trimmed,omitempty"`
}

// Masked stands in for every credential the harness writes out.
const Masked = "****"

// maxShownBody bounds what a report shows of one body.
const maxShownBody = 16 << 10

// secretHeaders are replaced whole; their values are credentials.
var secretHeaders = map[string]bool{
	"Authorization":       true,
	"Cookie":              true,
	"Set-Cookie":          true,
	"Proxy-Authorization": true,
}

// secretFields are JSON members and form fields whose values are credentials
// (RFC 6749 section 5.1 and 6, RFC 8628 section 3.2 and 3.4, RFC 7636 section 4.5).
var secretFields = []string{"access_token", "refresh_token", "id_token", "registration_access_token", "device_code", "code", "code_verifier", "client_secret", "csrf"}

var jsonSecret = regexp.MustCompile(`("(?:` + strings.Join(secretFields, "|") + `)"\s*:\s*)"(?:[^"\\]|\\.)*"`)

// MaskHeader returns a copy of h with credentials masked. Only the scheme of
// an Authorization header is kept, because it is diagnostic ("Bearer").
func MaskHeader(h http.Header) map[string][]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string][]string, len(h))
	for k, vs := range h {
		ck := http.CanonicalHeaderKey(k)
		if ck == "Location" {
			// A redirect to the client carries its code in the query.
			for _, v := range vs {
				out[ck] = append(out[ck], MaskQuery(v))
			}
			continue
		}
		if !secretHeaders[ck] {
			out[ck] = append([]string(nil), vs...)
			continue
		}
		masked := make([]string, len(vs))
		for i, v := range vs {
			masked[i] = Masked
			if ck == "Authorization" || ck == "Proxy-Authorization" {
				if scheme, _, ok := strings.Cut(v, " "); ok {
					masked[i] = scheme + " " + Masked
				}
			}
		}
		out[ck] = masked
	}
	return out
}

// MaskBody hides credential values in a JSON or form-encoded body.
func MaskBody(contentType string, body []byte) string {
	if strings.Contains(contentType, "application/x-www-form-urlencoded") {
		if v, err := url.ParseQuery(string(body)); err == nil {
			for _, f := range secretFields {
				if _, ok := v[f]; ok {
					v[f] = []string{Masked}
				}
			}
			return encodeSorted(v)
		}
	}
	if !namesSecretField(body) {
		// Most bodies name no secret field: no need to run the pattern over them.
		return string(body)
	}
	return jsonSecret.ReplaceAllString(string(body), `${1}"`+Masked+`"`)
}

// MaskURL hides credential values in a URL's query: an access token sent
// there (RFC 6750 section 2.3, which the suite sends to see it refused), or
// an authorization code in a redirect.
func MaskURL(u *url.URL) string {
	if u.RawQuery == "" {
		return u.String()
	}
	v, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return u.String()
	}
	masked := false
	for _, f := range secretFields {
		if _, ok := v[f]; ok {
			v[f] = []string{Masked}
			masked = true
		}
	}
	if !masked {
		return u.String()
	}
	c := *u
	c.RawQuery = encodeSorted(v)
	return c.String()
}

// namesSecretField is whether body has a secret field's name in quotes, which
// every match of jsonSecret starts with.
func namesSecretField(body []byte) bool {
	for _, f := range secretFields {
		if bytes.Contains(body, []byte(`"`+f+`"`)) {
			return true
		}
	}
	return false
}

// encodeSorted is url.Values.Encode without escaping the mask, for legibility.
func encodeSorted(v url.Values) string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, val := range v[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(k) + "=")
			if val == Masked {
				b.WriteString(val)
			} else {
				b.WriteString(url.QueryEscape(val))
			}
		}
	}
	return b.String()
}

// MaskSecret replaces every occurrence of the given secrets in s. Used for
// text the harness composes itself (messages, diagnosis output).
func MaskSecret(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, Masked)
		}
	}
	return MaskQuery(s)
}

// querySecret is a credential in the query of a URL written in text, such
// as an authorization response's code in the redirect a message quotes, or
// in its fragment, where a server that knows the implicit grant puts a
// token (RFC 6749 4.2.2).
var querySecret = regexp.MustCompile(`([?&#](?:` + strings.Join(secretFields, "|") + `)=)[^&#\s"']+`)

// MaskQuery hides the credentials in the query of every URL in s.
func MaskQuery(s string) string {
	return querySecret.ReplaceAllString(s, "${1}"+Masked)
}

// Record builds an Exchange from a request, its body, and the response (nil
// with err when the transport failed).
func Record(req *http.Request, reqBody []byte, resp *http.Response, respBody []byte, err error) Exchange {
	ex := Exchange{
		Method:        req.Method,
		URL:           MaskURL(req.URL),
		RequestHeader: MaskHeader(req.Header),
		RequestBody:   trim(MaskBody(req.Header.Get("Content-Type"), reqBody)),
	}
	if err != nil {
		ex.TransportError = err.Error()
	}
	if resp != nil {
		ex.Status = resp.StatusCode
		ex.ResponseHeader = MaskHeader(resp.Header)
		shown := MaskBody(resp.Header.Get("Content-Type"), respBody)
		ex.ResponseTrimmed = len(shown) > maxShownBody
		ex.ResponseBody = trim(shown)
	}
	return ex
}

func trim(s string) string {
	if len(s) > maxShownBody {
		return s[:maxShownBody]
	}
	return s
}

// String renders the exchange the way a person reads HTTP: request line,
// headers, body, a blank line, then status line, headers, body.
func (e Exchange) String() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "> %s %s\n", e.Method, e.URL)
	writeHeaders(&b, "> ", e.RequestHeader)
	if e.RequestBody != "" {
		b.WriteString(">\n")
		writeBody(&b, "> ", e.RequestBody)
	}
	if e.TransportError != "" {
		fmt.Fprintf(&b, "< (no response: %s)\n", e.TransportError)
		return b.String()
	}
	// A run of a client is shown as an exchange too: its output, and no
	// status, since no HTTP answer came back.
	if e.Status != 0 {
		fmt.Fprintf(&b, "< HTTP %d %s\n", e.Status, http.StatusText(e.Status))
	}
	writeHeaders(&b, "< ", e.ResponseHeader)
	if e.ResponseBody != "" {
		if e.Status != 0 || len(e.ResponseHeader) > 0 {
			b.WriteString("<\n")
		}
		writeBody(&b, "< ", e.ResponseBody)
		if e.ResponseTrimmed {
			fmt.Fprintf(&b, "< (body trimmed to %d bytes)\n", maxShownBody)
		}
	}
	return b.String()
}

// writeBody writes every line of a body behind the prefix, so that a
// multi-line body (an event stream, indented JSON) still reads as the
// request's or the response's and never as the report's own text.
func writeBody(b *bytes.Buffer, prefix, body string) {
	body = strings.ReplaceAll(strings.TrimRight(body, "\r\n"), "\r\n", "\n")
	for _, line := range strings.Split(body, "\n") {
		if line == "" {
			b.WriteString(strings.TrimSpace(prefix) + "\n")
			continue
		}
		b.WriteString(prefix + line + "\n")
	}
}

func writeHeaders(b *bytes.Buffer, prefix string, h map[string][]string) {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			fmt.Fprintf(b, "%s%s: %s\n", prefix, k, v)
		}
	}
}
