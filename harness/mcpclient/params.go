package mcpclient

// DefaultParams are the params the harness sends with a bare method, one a
// profile names without params: what a well-behaved MCP client would send.
func DefaultParams(method string) any {
	switch method {
	case "initialize":
		return map[string]any{
			"protocolVersion": "2025-06-18",
			"capabilities":    map[string]any{},
			"clientInfo":      map[string]any{"name": "conform", "version": "1"},
		}
	case "tools/call":
		return nil
	}
	return map[string]any{}
}
