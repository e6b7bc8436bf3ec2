package target

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/conform-mcp/conform/harness/wire"
)

// Connection is how the harness reaches a target over HTTP, as the user
// sets it on the command line: what a gateway in front of the host needs,
// how long a request may take, whether to trust a self-signed certificate,
// and whether to show each exchange as it happens.
type Connection struct {
	// Headers go on every request to the target's own origins (the base
	// URL's and the MCP endpoint's), never to an authorization server
	// elsewhere: a gateway's key is for the gateway.
	Headers http.Header
	// Timeout bounds each request; zero keeps the default of 30 seconds.
	Timeout time.Duration
	// Insecure skips TLS certificate verification.
	Insecure bool
	// Log, when set, receives every exchange, masked, as it completes.
	Log io.Writer
}

// DefaultTimeout bounds a request when the user sets no timeout.
const DefaultTimeout = 30 * time.Second

// reserved are the headers the scenarios set, or leave out on purpose, to
// check what they check: one the user added would change what was sent
// behind the harness's back, and a verdict would blame the host for it.
var reserved = []string{"Authorization", "Proxy-Authorization", "Cookie", "Origin", "Host", "Content-Type",
	"Accept", "Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name", "Last-Event-Id"}

// ParseHeader reads a header given as "Name: value", as curl takes it. The
// headers the harness itself decides are refused.
func ParseHeader(s string) (string, string, error) {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		// The text before the first space only: the rest may be a key.
		shown, _, _ := strings.Cut(strings.TrimSpace(s), " ")
		return "", "", fmt.Errorf("header %q...: give it as 'Name: value'", shown)
	}
	name = textproto.CanonicalMIMEHeaderKey(name)
	if slices.Contains(reserved, name) {
		if name == "Authorization" || name == "Proxy-Authorization" || name == "Cookie" {
			return "", "", fmt.Errorf("header %s: conform decides when a request carries a credential; give the host's credential with the profile's credential_env (or conform login)", name)
		}
		return "", "", fmt.Errorf("header %s: conform sets it, or leaves it out, as each check needs", name)
	}
	return name, strings.TrimSpace(value), nil
}

// Connect makes every request of the target go out as c says.
func (t *Target) Connect(c Connection) {
	t.HTTP = c.Client(t.Profile.Target, t.Endpoint())
}

// Client is an HTTP client whose requests go out as c says; the headers go
// only to the origins of the URLs given (the target's base URL and MCP
// endpoint).
func (c Connection) Client(targets ...string) *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	if c.Insecure {
		// The user asked for it with --insecure, and is warned.
		base.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	}
	var rt http.RoundTripper = base
	if c.Log != nil {
		// Beneath the headers, so that the log shows each request as it
		// went out, the user's headers included.
		rt = &logTransport{next: rt, out: c.Log, masked: c.Headers}
	}
	if len(c.Headers) > 0 {
		rt = headerTransport{next: rt, headers: c.Headers, origins: origins(targets)}
	}
	timeout := c.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	return &http.Client{Timeout: timeout, Transport: rt}
}

// origins are the scheme and authority of each URL.
func origins(urls []string) []string {
	var out []string
	for _, raw := range urls {
		if u, err := url.Parse(raw); err == nil && u.Host != "" {
			out = append(out, strings.ToLower(u.Scheme+"://"+u.Host))
		}
	}
	return out
}

// headerTransport adds the user's headers to requests for the target.
type headerTransport struct {
	next    http.RoundTripper
	headers http.Header
	origins []string
}

func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	origin := strings.ToLower(req.URL.Scheme + "://" + req.URL.Host)
	for _, o := range h.origins {
		if o != origin {
			continue
		}
		// A RoundTripper must not change the request it is given.
		req = req.Clone(req.Context())
		for k, vs := range h.headers {
			if _, set := req.Header[k]; !set {
				req.Header[k] = vs
			}
		}
		break
	}
	return h.next.RoundTrip(req)
}

// logTransport writes each exchange, masked as reports mask it, once its
// response has been read, so that a person watching sees the run unfold.
// The user's own headers show with their values masked: a gateway's key is
// as much a secret as a credential, and a log is pasted into bug reports.
type logTransport struct {
	next   http.RoundTripper
	mu     sync.Mutex
	out    io.Writer
	masked http.Header
}

func (l *logTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			body, _ = io.ReadAll(rc)
			rc.Close()
		}
	}
	resp, err := l.next.RoundTrip(req)
	if err != nil {
		l.write(wire.Record(req, body, nil, nil, err))
		return resp, err
	}
	resp.Body = &loggedBody{ReadCloser: resp.Body, done: func(b []byte) { l.write(wire.Record(req, body, resp, b, nil)) }}
	return resp, nil
}

func (l *logTransport) write(ex wire.Exchange) {
	for name := range l.masked {
		if vs, ok := ex.RequestHeader[name]; ok {
			ex.RequestHeader[name] = slices.Repeat([]string{wire.Masked}, len(vs))
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.out, "%s\n\n", ex.String())
}

// loggedBody keeps what the harness reads of a response and logs it when
// the harness closes the body.
type loggedBody struct {
	io.ReadCloser
	seen bytes.Buffer
	done func([]byte)
	once sync.Once
}

func (b *loggedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.seen.Write(p[:n])
	return n, err
}

func (b *loggedBody) Close() error {
	b.once.Do(func() { b.done(b.seen.Bytes()) })
	return b.ReadCloser.Close()
}
