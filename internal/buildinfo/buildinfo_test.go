package buildinfo_test

import (
	"runtime/debug"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/internal/buildinfo"
)

var _ = Describe("Describe", func() {
	It("names a released module version and its revision", func() {
		info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.time", Value: "2026-11-25T10:00:00Z"}, {Key: "vcs.modified", Value: "false"}}}
		Expect(buildinfo.Describe(info)).To(Equal("v1.2.0, revision 0123abc (2026-11-25T10:00:00Z), built with go1.26.8"))
	})

	It("marks a build from a clone with uncommitted changes", func() {
		info := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.modified", Value: "true"}}}
		Expect(buildinfo.Describe(info)).To(Equal("(devel), revision 0123abc, modified"))
	})

	It("says (devel) when the go command stamped no version nor revision", func() {
		Expect(buildinfo.Describe(&debug.BuildInfo{})).To(Equal("(devel)"))
	})
})
