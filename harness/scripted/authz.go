package scripted

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/conform-mcp/conform/harness/fakeauthz"
)

// Variant is how a scenario's scripted server behaves: compliant, or
// departing in one way a client must notice.
type Variant string

// The variants of the mcp-authorization pack's scripted server, fakeauthz:
// an MCP server whose authorization server is on another origin, with an
// issuer that has a path and only OpenID Connect Discovery.
const (
	// Compliant departs from nothing.
	Compliant Variant = "compliant"
	// MetadataOnlyInChallenge serves the protected resource metadata only
	// at a URL the 401 challenge names, at no well-known URI.
	MetadataOnlyInChallenge Variant = "metadata-only-in-challenge"
	// ChallengeWithoutMetadata names no resource_metadata in its challenges.
	ChallengeWithoutMetadata Variant = "challenge-without-metadata"
	// IssuerMismatch serves authorization server metadata whose issuer is
	// not the identifier its well-known URI was built from.
	IssuerMismatch Variant = "issuer-mismatch"
	// NoPKCEAdvertised leaves code_challenge_methods_supported out of the
	// authorization server metadata.
	NoPKCEAdvertised Variant = "no-pkce-advertised"
	// IssWrong sends an iss in the authorization response that is not the
	// issuer's.
	IssWrong Variant = "iss-wrong"
	// IssMissing advertises authorization_response_iss_parameter_supported
	// but sends no iss.
	IssMissing Variant = "iss-missing"
	// IssSlashed sends as iss the issuer with a trailing slash: the same
	// issuer only to a client that normalizes before comparing.
	IssSlashed Variant = "iss-slashed"
	// ChallengeScope names in its 401 challenge a scope that
	// scopes_supported does not list, besides one it does.
	ChallengeScope Variant = "challenge-scope"
	// StepUp names only the listing scope in its 401 challenge, grants
	// only the scope asked for, and answers a tools/call without the write
	// scope 403 insufficient_scope.
	StepUp Variant = "step-up"
	// StepUpMissingOnly is StepUp whose 403 names only the scope the
	// token lacks, not the one already granted: servers "are not required
	// to include the client's previously granted scopes" (authorization
	// 11.1.1), and the client is to keep them itself (authorization 6).
	StepUpMissingOnly Variant = "step-up-missing-only"
	// Modern speaks only MCP 2026-07-28.
	Modern Variant = "2026-07-28"
	// StateWrong answers the authorization request with a state other than
	// the one sent.
	StateWrong Variant = "state-wrong"
	// ResourceMismatch serves protected resource metadata whose resource is
	// not the MCP server's URL (RFC 9728 3.3: a client must not use it).
	ResourceMismatch Variant = "resource-mismatch"
	// ExtraMembers adds a parameter no specification defines to the
	// authorization response and a member to the token response, which a
	// client must ignore (OAuth 2.1 4.1.2 and 3.2.3).
	ExtraMembers Variant = "extra-members"
	// NoRefreshToken issues refresh tokens only to authorizations that ask
	// for offline_access, which it names nowhere: a client that does not
	// ask for it gets none (authorization 10: clients "MUST NOT assume
	// refresh tokens will be issued").
	NoRefreshToken Variant = "no-refresh-token"
	// CIMDNotAdvertised leaves client_id_metadata_document_supported out
	// of its authorization server metadata, and takes no client by its
	// client ID metadata document (Client Registration, "Advertising CIMD
	// Support").
	CIMDNotAdvertised Variant = "cimd-not-advertised"
)

// ExtraMember is the name of the member ExtraMembers adds.
const ExtraMember = "conform_unknown_member"

// ExtraScope is the scope ChallengeScope's challenge names that
// scopes_supported does not list.
const ExtraScope = "mcp:extra"

// otherMetadataPath is where MetadataOnlyInChallenge serves the protected
// resource metadata: no well-known URI.
const otherMetadataPath = "/metadata/protected-resource"

var (
	metadataParam = regexp.MustCompile(`,?\s*resource_metadata="[^"]*"`)
	scopeParam    = regexp.MustCompile(`scope="[^"]*"`)
)

// authz is the state of one fakeauthz-based scripted server.
type authz struct {
	v    Variant
	host *fakeauthz.Host
	mu   sync.Mutex
	// asked is the scope each authorization code's request asked for.
	asked map[string]string
	// moved is the authorization server the protected resource metadata
	// names once the server has moved to another (nil before).
	moved *fakeauthz.Host
}

// Preregistered is a client the user registered with the authorization
// server beforehand, which the scripted authorization server knows from the
// start; the zero value is none, and the client must register itself.
type Preregistered struct {
	ID string
	// Secret is the client's secret when it is confidential, "" for a
	// public client.
	Secret string
}

// AuthzOptions are what the user tells of the client beyond its command.
type AuthzOptions struct {
	// Preregistered is the client registered beforehand, if any.
	Preregistered Preregistered
	// Documents fetches the client ID metadata documents a client names
	// itself by; nil for http.DefaultClient.
	Documents *http.Client
}

// StartAuthz starts the mcp-authorization pack's scripted server, named
// name in log, its authorization server knowing opts.Preregistered from the
// start when it names a client.
func StartAuthz(name string, v Variant, log *Log, opts AuthzOptions) (*Server, error) {
	pre := opts.Preregistered
	a := &authz{v: v, asked: map[string]string{}}
	var breaks []fakeauthz.Break
	switch v {
	case IssuerMismatch:
		breaks = append(breaks, fakeauthz.ASIssuerMismatch)
	case NoPKCEAdvertised:
		breaks = append(breaks, fakeauthz.S256NotAdvertised)
	case IssMissing:
		breaks = append(breaks, fakeauthz.IssMissing)
	case Modern:
		breaks = append(breaks, fakeauthz.Speaks2026Only)
	case NoRefreshToken:
		breaks = append(breaks, fakeauthz.RefreshOnlyOfflineAccessUnadvertised)
	case CIMDNotAdvertised:
		breaks = append(breaks, fakeauthz.CIMDNotAdvertised)
	}
	breaks = append(breaks, fakeauthz.LocalhostPortFree)
	if v != Modern {
		// Every other variant serves a client of either era: its
		// scenarios judge authorization, whatever revision the client
		// speaks (transport, Backward Compatibility).
		breaks = append(breaks, fakeauthz.SpeaksBothEras)
	}
	srv := &Server{Name: name}
	var err error
	a.host, err = fakeauthz.StartWrapped(func(origin fakeauthz.Origin, next http.Handler) http.Handler {
		if origin == fakeauthz.MCPOrigin {
			fake := next
			next = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				a.route(r)
				a.refuseAfterMove(r)
				fake.ServeHTTP(w, r)
			})
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			record(log, name, string(origin), r, w, next, a.adjust(origin))
		})
	}, listen, breaks...)
	if err != nil {
		return nil, err
	}
	if pre.ID != "" {
		a.host.Preregister(pre.ID, pre.Secret)
	}
	a.host.FetchDocumentsWith(opts.Documents)
	*srv = Server{
		Name:      name,
		Endpoint:  a.host.Endpoint(),
		Issuer:    a.host.Issuer(),
		Resource:  a.host.Endpoint(),
		Origins:   map[string]string{"mcp": a.host.RS.URL, "as": a.host.AS.URL},
		Metadata:  a.metadataURL(),
		Authorize: a.host.Issuer() + "/authorize",
		// {args} is a JSON object, as the placeholder promises: a client
		// that parses its arguments must not be handed "".
		Tool: "echo",
		Args: "{}",
		close: func() {
			a.host.Close()
			if m := a.movedTo(); m != nil {
				m.Close()
			}
		},
		revoke: a.host.ExpireIssued,
		move: func() error {
			m, err := fakeauthz.StartWrapped(func(origin fakeauthz.Origin, next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					record(log, name, MovedOrigin, r, w, next, nil)
				})
			}, listen)
			if err != nil {
				return err
			}
			m.FetchDocumentsWith(opts.Documents)
			a.mu.Lock()
			a.moved = m
			a.mu.Unlock()
			srv.Issuer, srv.Authorize, srv.Origins[MovedOrigin] = m.Issuer(), m.Issuer()+"/authorize", m.AS.URL
			return nil
		},
	}
	return srv, nil
}

// MovedOrigin is the origin, in the log, of the authorization server a
// scripted server moved to.
const MovedOrigin = "as-moved"

func (a *authz) movedTo() *fakeauthz.Host {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.moved
}

// unknownToken is a token no authorization server of the scripted server
// issued.
const unknownToken = "Bearer conform-moved-away"

// refuseAfterMove makes the MCP server take no token once it has moved to
// another authorization server: a token of the first, a refreshed one
// included, is answered 401 as any token it does not know. Otherwise a
// client that refreshes at the first authorization server without reading
// the metadata again (the Inspector CLI does) has its call served and never
// needs the new one, and registration's "Authorization Server Binding"
// could not be judged for want of a reason to use it.
func (a *authz) refuseAfterMove(r *http.Request) {
	if a.movedTo() != nil && r.Header.Get("Authorization") != "" {
		r.Header.Set("Authorization", unknownToken)
	}
}

// metadataURL is the protected resource metadata URL the challenge names.
func (a *authz) metadataURL() string {
	switch a.v {
	case MetadataOnlyInChallenge:
		return a.host.RS.URL + otherMetadataPath
	case ChallengeWithoutMetadata:
		return ""
	}
	return a.host.RS.URL + a.host.MetadataPath()
}

// route serves MetadataOnlyInChallenge's metadata where its challenge says,
// and nowhere else.
func (a *authz) route(r *http.Request) {
	if a.v != MetadataOnlyInChallenge {
		return
	}
	switch r.URL.Path {
	case otherMetadataPath:
		r.URL.Path = a.host.MetadataPath()
	case a.host.MetadataPath():
		r.URL.Path = "/not-here"
	}
}

// adjust scripts what the variant changes in the fake's answers.
func (a *authz) adjust(origin fakeauthz.Origin) Adjust {
	return func(r *http.Request, status int, h http.Header, body []byte) []byte {
		if origin == fakeauthz.MCPOrigin {
			a.challenge(status, h)
			return a.resourceMetadata(r, status, body)
		}
		switch {
		case r.URL.Path == "/tenant/authorize" && status == http.StatusFound:
			a.authorized(r, h)
		case r.URL.Path == "/tenant/token" && status == http.StatusOK && a.stepUp():
			return a.narrow(r, body)
		case r.URL.Path == "/tenant/token" && status == http.StatusOK && a.v == ExtraMembers:
			return rewriteJSON(body, func(doc map[string]any) { doc[ExtraMember] = "ignored" })
		}
		return body
	}
}

// rewriteJSON returns body, a JSON object, as edit leaves it; body itself
// when it is no JSON object.
func rewriteJSON(body []byte, edit func(map[string]any)) []byte {
	var doc map[string]any
	if json.Unmarshal(body, &doc) != nil || doc == nil {
		return body
	}
	edit(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		return body
	}
	return out
}

// resourceMetadata rewrites the protected resource metadata as the
// variant, or a move to another authorization server, says.
func (a *authz) resourceMetadata(r *http.Request, status int, body []byte) []byte {
	if status != http.StatusOK || r.URL.Path != a.host.MetadataPath() {
		return body
	}
	if a.v == ResourceMismatch {
		body = rewriteJSON(body, func(doc map[string]any) { doc["resource"] = a.host.RS.URL + "/elsewhere/mcp" })
	}
	return a.movedMetadata(body)
}

// movedMetadata names the authorization server the server moved to in its
// protected resource metadata (registration, "Authorization Server
// Binding": the change a client detects there).
func (a *authz) movedMetadata(body []byte) []byte {
	m := a.movedTo()
	if m == nil {
		return body
	}
	return rewriteJSON(body, func(doc map[string]any) { doc["authorization_servers"] = []string{m.Issuer()} })
}

// challenge rewrites the MCP server's 401 challenge as the variant says.
func (a *authz) challenge(status int, h http.Header) {
	c := h.Get("WWW-Authenticate")
	if c == "" {
		return
	}
	switch {
	case a.v == MetadataOnlyInChallenge:
		c = metadataParam.ReplaceAllString(c, `, resource_metadata="`+a.metadataURL()+`"`)
	case a.v == ChallengeWithoutMetadata:
		c = metadataParam.ReplaceAllString(c, "")
	case a.v == ChallengeScope && status == http.StatusUnauthorized:
		c = scopeParam.ReplaceAllString(c, `scope="`+fakeauthz.ScopeTools+" "+ExtraScope+`"`)
	case a.stepUp() && status == http.StatusUnauthorized:
		c = scopeParam.ReplaceAllString(c, `scope="`+fakeauthz.ScopeTools+`"`)
	case a.v == StepUpMissingOnly && status == http.StatusForbidden:
		// The 401 asked for the listing scope only, which the token
		// holds; the call needs the write scope besides.
		c = scopeParam.ReplaceAllString(c, `scope="`+fakeauthz.ScopeWrite+`"`)
	}
	h.Set("WWW-Authenticate", c)
}

// stepUp says whether the variant grants only the scope asked for and
// answers a call that needs more 403 insufficient_scope.
func (a *authz) stepUp() bool { return a.v == StepUp || a.v == StepUpMissingOnly }

// authorized notes the scope a code was asked with (StepUp) and rewrites
// the iss (IssWrong, IssSlashed) or the state (StateWrong) of the
// redirect, or adds a parameter to it (ExtraMembers).
func (a *authz) authorized(r *http.Request, h http.Header) {
	loc, err := url.Parse(h.Get("Location"))
	if err != nil {
		return
	}
	q := loc.Query()
	if c := q.Get("code"); c != "" {
		a.mu.Lock()
		a.asked[c] = r.URL.Query().Get("scope")
		a.mu.Unlock()
	}
	switch a.v {
	case IssWrong:
		q.Set("iss", a.host.AS.URL+"/elsewhere")
	case IssSlashed:
		q.Set("iss", a.host.Issuer()+"/")
	case StateWrong:
		q.Set("state", "not-"+q.Get("state"))
	case ExtraMembers:
		q.Set(ExtraMember, "ignored")
	default:
		return
	}
	loc.RawQuery = q.Encode()
	h.Set("Location", loc.String())
}

// narrow makes the token just issued stand for the scope its code was
// asked with, as an authorization server that grants what is asked would,
// and says so in the token response.
func (a *authz) narrow(r *http.Request, body []byte) []byte {
	var tok map[string]any
	if json.Unmarshal(body, &tok) != nil {
		return body
	}
	access, _ := tok["access_token"].(string)
	if access == "" {
		return body
	}
	a.mu.Lock()
	scope := strings.TrimSpace(a.asked[r.PostForm.Get("code")])
	a.mu.Unlock()
	a.host.Narrow(access, scope)
	tok["scope"] = scope
	out, err := json.Marshal(tok)
	if err != nil {
		return body
	}
	return out
}
