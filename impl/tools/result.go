package tools

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// success is a result with human-readable text and, when structured is not
// nil, the same facts as structuredContent.
func success(text string, structured any) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: structured,
	}
}

// failure is the in-call failure shape of source 7.1 and 7.4: HTTP 200,
// isError true, a single text content that starts with the error code.
func failure(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}},
		IsError: true,
	}
}

// invalidArguments is the failure of arguments that do not fit the tool's
// input schema. It names the tool, as there may be no path to name.
func invalidArguments(code, tool string, err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: code + ": Invalid arguments for " + tool + ": " + err.Error()}},
		IsError: true,
	}
}
