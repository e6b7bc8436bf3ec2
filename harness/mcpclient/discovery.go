package mcpclient

// DiscoveryPath is where a tool host of the source document's kind serves
// its discovery document, under its base URL: the document "used to check
// that a host is reachable" (source 1 and 4, and 7.5 step 1).
const DiscoveryPath = "/.well-known/mcp.json"
