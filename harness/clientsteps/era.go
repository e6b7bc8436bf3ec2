package clientsteps

import (
	"net/http"
	"slices"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/scripted"
)

// eraRefused is the not-run error of a judgement that needs a call answered
// 200, when the client speaks only MCP 2026-07-28 and the scenario's first
// server only the revisions before it (every variant but Modern): among
// reqs, a request to that server bore one of tokens, spoke 2026-07-28 (its
// MCP-Protocol-Version header) and was answered 400, and the client never
// sent the server an initialize. That revision allows such a client:
// falling back to initialize is for "a client that supports both modern
// (per-request-metadata) MCP versions and a legacy version" (transport,
// Backward Compatibility). No call of it could be answered 200 there,
// whatever it did right in authorization. nil when that is not so, and the
// judgement stands.
func (st *scenario) eraRefused(reqs []scripted.Request, tokens []string) error {
	srv := st.first()
	if st.variant == scripted.Modern || slices.ContainsFunc(st.log.Requests(), func(r scripted.Request) bool {
		method, _ := rpcMethod(r.Body)
		return isMCP(r, srv) && method == "initialize"
	}) {
		return nil
	}
	for _, r := range reqs {
		if isMCP(r, srv) && r.Status == http.StatusBadRequest && r.Header.Get("MCP-Protocol-Version") == mcpclient.Modern && slices.Contains(tokens, bearerOf(r)) {
			method, _ := rpcMethod(r.Body)
			return st.unseen("the client speaks only MCP " + mcpclient.Modern + " and this scripted server only earlier revisions: it answered the client's authorized " +
				method + " 400, and the client sent no initialize, so no call of it could be answered 200")
		}
	}
	return nil
}
