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
		Expect(buildinfo.Describe("", info)).To(Equal("v1.2.0, revision 0123abc (2026-11-25T10:00:00Z), built with go1.26.8"))
	})

	It("puts the version make stamped first", func() {
		info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.modified", Value: "true"}}}
		Expect(buildinfo.Describe("v1.2.0-3-g0123abc-dirty", info)).To(Equal("v1.2.0-3-g0123abc-dirty, revision 0123abc, modified, built with go1.26.8"))
	})

	It("marks a build from a clone with uncommitted changes, never saying only (devel) (issue 24 item 10)", func() {
		info := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}
		Expect(buildinfo.Describe("", info)).To(Equal("devel-0123456789ab-dirty, revision 0123456789abcdef0123, modified"))
	})

	It("says devel and the Go release when nothing stamped a version nor a revision (issue 24 item 10)", func() {
		Expect(buildinfo.Describe("", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, GoVersion: "go1.26.8"})).To(Equal("devel, built with go1.26.8"))
		Expect(buildinfo.Describe("", nil)).To(Equal("devel, built without module support"))
	})
})

var _ = Describe("NumberOf", func() {
	DescribeTable("is one word that is never the go command's placeholder",
		func(stamped string, info *debug.BuildInfo, want string) {
			Expect(buildinfo.NumberOf(stamped, info)).To(Equal(want))
		},
		Entry("stamped by make", "0123abc-dirty", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "0123abc-dirty"),
		Entry("a module version", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0"),
		Entry("a clean clone's revision", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abc"}}}, "devel-0123abc"),
		Entry("nothing at all", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"),
		Entry("no build information", "", nil, "devel"),
	)
})
