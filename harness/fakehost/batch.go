package fakehost

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// Batches. The source does not say how a host treats a JSON-RPC batch (MCP
// 2025-06-18 removed them): the default host reads none, so an anonymous
// batch names no allowed method and gets the 401, while the Other host
// answers each request of a batch on its own, refusing at gate 1 the ones an
// anonymous caller may not make with a JSON-RPC error in their place. Either
// keeps source 5.3: no request outside the allowlist reaches a tool.

// isBatch reports whether a body is a JSON array, which this host answers as
// a batch only when it is the Other host or is broken to.
func (h *Host) isBatch(body []byte) bool {
	body = bytes.TrimSpace(body)
	return len(body) > 0 && body[0] == '[' && (h.opts.Other || h.broken(BatchGatedByFirst))
}

// serveBatch answers a batch request by request. A rejected credential
// refuses the whole batch, since the header is the request's, not an
// entry's (source 7.2).
func (h *Host) serveBatch(w http.ResponseWriter, r *http.Request, body []byte) {
	var entries []request
	if err := json.Unmarshal(body, &entries); err != nil || len(entries) == 0 {
		writeJSON(w, http.StatusBadRequest, response(nil, nil, &rpcError{-32600, "invalid batch"}))
		return
	}
	verdicts := make([]cause, len(entries))
	callers := make([]caller, len(entries))
	for i, e := range entries {
		var tool struct {
			Name string `json:"name"`
		}
		if e.Method == "tools/call" {
			_ = json.Unmarshal(e.Params, &tool)
		}
		callers[i], verdicts[i] = h.gates(r, e, tool.Name, e.Method != "")
		if h.broken(BatchGatedByFirst) {
			callers[i], verdicts[i] = callers[0], verdicts[0]
		}
		if verdicts[i] == causeCredential {
			h.unauthorized(w, r, nil, causeCredential)
			return
		}
	}
	if !h.session(w, r, request{Method: "batch"}) {
		return
	}
	var out []map[string]any
	for i, e := range entries {
		switch {
		case e.ID == nil:
			// A notification gets no response (JSON-RPC 2.0 section 6).
		case verdicts[i] != "":
			out = append(out, response(e.ID, nil, &rpcError{-32001, "Unauthorized: " + string(verdicts[i])}))
		default:
			result, rerr := h.dispatch(e, callers[i])
			out = append(out, response(e.ID, result, rerr))
		}
	}
	if len(out) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
