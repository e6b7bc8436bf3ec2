// Package features embeds the suite's Gherkin features, so that the conform
// binary runs them from anywhere. The features are the executable
// specification: one file per source section, every scenario tagged with the
// IDs (spec/requirements.yaml) of the requirements it checks.
package features

import "embed"

// FS holds every feature file.
//
//go:embed *.feature
var FS embed.FS
