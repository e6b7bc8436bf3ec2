package gate

import "slices"

// batchRevisions are the MCP revisions whose transport carries JSON-RPC
// batches. Revision 2025-06-18 removed batching (its changelog: "Remove
// support for JSON-RPC batching"), and no later revision brought it back.
var batchRevisions = []string{"2024-11-05", "2025-03-26"}

// batchAllowed reports whether a request whose MCP-Protocol-Version header
// is version may carry a batch. A request without the header is read as
// 2025-03-26 (MCP 2025-06-18, Transports, "Protocol Version Header"), which
// has batches; any other revision, an unknown one included, has none.
func batchAllowed(version string) bool {
	return version == "" || slices.Contains(batchRevisions, version)
}

// noBatchMessage is the Invalid Request of a batch sent for a revision
// without batches.
func noBatchMessage(version string) string {
	return "Invalid Request: MCP revision " + version + " has no JSON-RPC batches (removed in 2025-06-18); send one message per request"
}
