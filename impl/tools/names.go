package tools

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Value Encoding of MCP 2026-07-28's Streamable HTTP transport: a client
// carries an Mcp-Name that is not plain ASCII (or that looks like the
// sentinel) as "=?base64?...?=", and "servers MUST decode an encoded
// Mcp-Name ... value before comparing it to the corresponding request body
// value". The SDK (v1.8.0) compares the header as sent, so an encoded name
// would be refused as a mismatch: decodeName decodes it first.
const (
	sentinelPrefix = "=?base64?"
	sentinelSuffix = "?="
)

// decodeName replaces an encoded Mcp-Name by its value before next checks it
// against the body; one that is not valid Base64 is refused as the
// transport's Server Validation says, 400 with HeaderMismatch (-32020). The
// gate has already decided on the body, so nothing here opens a call.
func decodeName(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := r.Header.Get("Mcp-Name")
		inner, ok := strings.CutPrefix(v, sentinelPrefix)
		if !ok || !strings.HasSuffix(inner, sentinelSuffix) {
			next.ServeHTTP(w, r)
			return
		}
		decoded, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(inner, sentinelSuffix))
		if err != nil {
			writeError(w, http.StatusBadRequest, codeHeaderMismatch, "header mismatch: Mcp-Name is not valid Base64 between =?base64? and ?=")
			return
		}
		r.Header.Set("Mcp-Name", string(decoded))
		next.ServeHTTP(w, r)
	})
}

// codeHeaderMismatch is MCP 2026-07-28's HeaderMismatch error code.
const codeHeaderMismatch = -32020

// writeError answers with a JSON-RPC error without an id, which the
// request's could not be matched to.
func writeError(w http.ResponseWriter, status int, code int64, message string) {
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{Error: &jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		http.Error(w, message, status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}
