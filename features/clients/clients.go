// Package clients embeds the client half's features: for each pack, in a
// folder named after it, the scenarios in which conform plays a scripted
// server against the user's MCP client and judges the requests it sends
// (harness/clientsteps). Every scenario is tagged with the IDs of the
// role: client requirements it checks and an @id: slug, as the server
// half's are.
package clients

import "embed"

// FS holds every client feature of every pack.
//
//go:embed mcp-authorization/*.feature source/*.feature
var FS embed.FS
