// Package buildinfo says which build of conform or toolhost is running: the
// module version and the version-control revision the go command stamped
// into the binary, for --version and for bug reports.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Version describes the running binary: "v1.2.0", or "(devel)" for a build
// from a clone, followed by the revision it was built from, marked
// "modified" when the work tree had uncommitted changes.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (built without module support)"
	}
	return Describe(info)
}

// Describe is Version for the given build information.
func Describe(info *debug.BuildInfo) string {
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	parts := []string{version}
	if rev := settings["vcs.revision"]; rev != "" {
		r := "revision " + rev
		if t := settings["vcs.time"]; t != "" {
			r += " (" + t + ")"
		}
		if settings["vcs.modified"] == "true" {
			r += ", modified"
		}
		parts = append(parts, r)
	}
	if info.GoVersion != "" {
		parts = append(parts, "built with "+info.GoVersion)
	}
	return strings.Join(parts, ", ")
}
