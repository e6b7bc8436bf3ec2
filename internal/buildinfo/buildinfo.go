// Package buildinfo says which build of conform or toolhost is running: the
// version make stamped into the binary, or the module version and the
// version-control revision the go command stamped, for --version, for bug
// reports, and for the clientInfo conform sends.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// stamped is the version make build and make install set at link time
// (-ldflags "-X ...buildinfo.stamped=$(git describe --always --dirty)");
// empty in a binary built otherwise.
var stamped string

// devel names a build that carries no version at all: built from a copy of
// the source that is no git clone, with plain go build.
const devel = "devel"

// Version describes the running binary: its version (Number), then the
// revision the go command stamped, marked "modified" when the work tree had
// uncommitted changes, then the Go release it was built with.
func Version() string {
	info, _ := debug.ReadBuildInfo()
	return Describe(stamped, info)
}

// Number is the running binary's version alone, as conform names itself
// in initialize's clientInfo.
func Number() string {
	info, _ := debug.ReadBuildInfo()
	return NumberOf(stamped, info)
}

// NumberOf is Number for the given stamped version and build information:
// the stamped version when there is one; else the module version the go
// command stamped (a release tag, or a pseudo-version from the clone),
// never its placeholder "(devel)"; else "devel", with the revision when
// there is one ("devel-0123abcdef01", "-dirty" when modified).
func NumberOf(stamped string, info *debug.BuildInfo) string {
	if stamped != "" {
		return stamped
	}
	if info == nil {
		return devel
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	settings := vcs(info)
	rev := settings["vcs.revision"]
	if rev == "" {
		return devel
	}
	out := devel + "-" + rev[:min(len(rev), 12)]
	if settings["vcs.modified"] == "true" {
		out += "-dirty"
	}
	return out
}

// Describe is Version for the given stamped version and build information.
func Describe(stamped string, info *debug.BuildInfo) string {
	parts := []string{NumberOf(stamped, info)}
	if info == nil {
		return parts[0] + ", built without module support"
	}
	settings := vcs(info)
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

// vcs is the build settings by key.
func vcs(info *debug.BuildInfo) map[string]string {
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	return settings
}
