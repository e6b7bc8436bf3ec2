// Package gate decides gates 1 and 2 of source section 5 for the MCP
// endpoint: an HTTP middleware that reads the JSON-RPC method and tool name
// and the Authorization header, and answers 4xx before any tool is looked up.
// After gate 2 it also holds a verified credential to its role (scope.go).
package gate

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"

	"github.com/conform-mcp/conform/impl/baseurl"
	"github.com/conform-mcp/conform/impl/caller"
	"github.com/conform-mcp/conform/impl/request"
)

// DefaultMaxBodyBytes bounds a request body when Config.MaxBodyBytes is 0.
const DefaultMaxBodyBytes = 1 << 20

// Verifier turns a bearer token into the caller it was issued to, or fails
// when the token is unknown, malformed or issued by another host instance.
type Verifier interface {
	Verify(ctx context.Context, token string) (caller.Caller, error)
}

// Config is what the gate needs to decide.
type Config struct {
	// Verifier decides gate 2. When nil, every credential is refused.
	Verifier Verifier
	// AnonymousTools are the tools/call names a caller without an
	// Authorization header may use (source 5.3).
	AnonymousTools []string
	// ToolScopes maps each tool name to the scope a credential's role must
	// grant to call it (package role); a call beyond the role is refused
	// with 403 insufficient_scope.
	ToolScopes map[string]string
	// BaseURL gives the {base_url} of the 401 challenge (source 7.2).
	BaseURL baseurl.Resolver
	// ChallengeScopes are the scopes every 401 challenge names, whatever
	// was called (none when empty).
	ChallengeScopes []string
	// MaxBodyBytes bounds the request body; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
}

// anonymousMethods are the JSON-RPC methods open without a credential
// (source 5.3, "only these methods"), plus notifications/initialized, which
// a client that initialises sends and which is no call: it gets no reply
// (PRODUCT 6). Everything else, ping included, is the 401. tools/call is
// decided per tool name.
var anonymousMethods = []string{
	"initialize", "notifications/initialized",
	"tools/list", "resources/list", "prompts/list",
}

type gate struct {
	next http.Handler
	cfg  Config
}

// New returns next behind gates 1 and 2. Requests that pass reach next with
// the body re-supplied, the messages the gate parsed in the context
// (request.NewContext), so next need not decode them again, and, when a
// credential verified, the caller in the context (caller.NewContext).
func New(next http.Handler, cfg Config) http.Handler {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	return &gate{next: next, cfg: cfg}
}

// ServeHTTP checks, in order: the HTTP method, the content type, the body
// size, the JSON and whether the request's revision has batches, none of
// which depends on which tools exist; then the
// credential when one is presented (gate 2), else the anonymous allowlist
// (gate 1). Source 5.4: the allowlist is checked before the tool name is
// looked up, so an unknown name and a privileged one get the same 401.
func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		// RFC 9110 15.5.6: a 405 names the allowed methods.
		w.Header().Set("Allow", http.MethodPost)
		writeRPCError(w, http.StatusMethodNotAllowed, codeInvalidRequest, "Method Not Allowed: the MCP endpoint accepts POST only")
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeRPCError(w, http.StatusUnsupportedMediaType, codeInvalidRequest, "Unsupported Media Type: Content-Type must be application/json")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.cfg.MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeRPCError(w, http.StatusRequestEntityTooLarge, codeInvalidRequest, tooLargeMessage(tooLarge.Limit))
			return
		}
		writeRPCError(w, http.StatusBadRequest, codeInvalidRequest, "Invalid Request: the body could not be read")
		return
	}
	msgs, batch, rpcErr := parseMessages(body)
	if rpcErr != nil {
		writeRPCError(w, http.StatusBadRequest, rpcErr.code, rpcErr.message)
		return
	}
	// Like the batch bound, decided from the body and one header only, the
	// same for every caller, before any credential or tool is looked at.
	if version := r.Header.Get("Mcp-Protocol-Version"); batch && !batchAllowed(version) {
		writeRPCError(w, http.StatusBadRequest, codeInvalidRequest, noBatchMessage(version))
		return
	}

	ctx := r.Context()
	if values, present := r.Header["Authorization"]; present {
		c, ok := g.verify(ctx, values)
		if !ok {
			g.unauthorized(w, r)
			return
		}
		if missing := g.beyondRole(c, msgs); missing != nil {
			g.insufficientScope(w, r, c, missing)
			return
		}
		ctx = caller.NewContext(ctx, c)
	} else if !g.anonymousMayCall(msgs) {
		g.unauthorized(w, r)
		return
	}

	r = r.WithContext(request.NewContext(ctx, share(body, batch, msgs)))
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	g.next.ServeHTTP(w, r)
}

// anonymousMayCall is gate 1 for a caller without a credential: every
// message of a batch must be allowed on its own (PRODUCT 6), so a batch
// cannot smuggle a privileged call behind an allowed one.
func (g *gate) anonymousMayCall(msgs []message) bool {
	for _, m := range msgs {
		switch {
		case m.method == "tools/call":
			if !m.hasToolName || !slices.Contains(g.cfg.AnonymousTools, m.toolName) {
				return false
			}
		case !m.hasMethod || !slices.Contains(anonymousMethods, m.method):
			return false
		}
	}
	return true
}
