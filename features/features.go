// Package features embeds the suite's Gherkin features, so that the conform
// binary runs them from anywhere. The features are the executable
// specification: one file per section, every scenario tagged with the IDs of
// the requirements it checks. The default pack's features (the source
// document, spec/requirements.yaml) sit at the top; every other pack's sit in
// a folder named after the pack (mcp-authorization/, spec/mcp-authorization).
package features

import "embed"

// FS holds every feature file of every pack.
//
//go:embed *.feature mcp-authorization/*.feature
var FS embed.FS
