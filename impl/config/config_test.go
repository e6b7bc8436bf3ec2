package config_test

import (
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/budget"
	"github.com/conform-mcp/conform/impl/config"
	"github.com/conform-mcp/conform/impl/connlimit"
)

var _ = Describe("Config", func() {
	It("embeds a default that serves the example profile's paths (PRODUCT 4)", func() {
		cfg, err := config.Default()
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.NetworkRead).To(Equal([]string{"/public"}))
		Expect(cfg.Collections).To(BeEmpty())
		byPath := map[string]config.Mount{}
		for _, m := range cfg.Mounts {
			byPath[m.Path] = m
		}
		Expect(byPath["/public"].Files).To(HaveKey("readme.md"))
		Expect(byPath["/base"].Files).To(HaveKey("notes.txt"))
		Expect(byPath["/base"].Overlay).To(BeFalse())
		Expect(byPath["/overlay"]).To(Equal(config.Mount{Path: "/overlay", Provider: "disk", Dir: "overlay", Overlay: true}))
		Expect(byPath["/overlay/readonly"].Overlay).To(BeTrue())
		Expect(byPath["/overlay/readonly"].ReadOnly).To(BeTrue())
		Expect(byPath["/overlay/readonly"].Files).To(HaveKey("about.md"))
	})

	It("embeds the reference host's rate limits as defaults (source 7.3, 8)", func() {
		cfg, err := config.Default()
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.RateLimits).To(Equal(config.RateLimits{
			RegistrationBurst: 20, RegistrationEvery: 3 * time.Minute, DeviceBurst: 30, DeviceEvery: 10 * time.Second}))
	})

	It("reads rate limits written as durations", func() {
		cfg, err := config.Parse([]byte("rate_limits: {registration_burst: 5, registration_every: 200ms}\nmounts: [{path: /a, provider: memory}]\n"), "test.yaml")
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.RateLimits).To(Equal(config.RateLimits{RegistrationBurst: 5, RegistrationEvery: 200 * time.Millisecond}))
	})

	It("loads a file with collections and a public URL", func() {
		file := filepath.Join(GinkgoT().TempDir(), "host.yaml")
		Expect(os.WriteFile(file, []byte(`
name: docs host
public_url: https://tools.example.test
mounts:
  - path: /docs
    provider: memory
    files: {a.md: "alpha"}
networkRead: [/docs]
collections:
  - {name: docs, path: /docs}
`), 0o644)).To(Succeed())
		cfg, err := config.Load(file)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.PublicURL).To(Equal("https://tools.example.test"))
		Expect(cfg.Collections).To(Equal([]config.Collection{{Name: "docs", Path: "/docs"}}))
	})

	DescribeTable("refuses bad configurations with a clear message",
		func(yaml, want string) {
			_, err := config.Parse([]byte(yaml), "test.yaml")
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("unknown key, with its line", "mounts:\n  - path: /a\n    provider: memory\n    overlayy: true\n", "line 4: field overlayy not found"),
		Entry("misspelt networkRead", "network_read: [/a]\nmounts: [{path: /a, provider: memory}]\n", "field network_read not found"),
		Entry("empty file", "", "config test.yaml: the file is empty"),
		Entry("two documents", "mounts: [{path: /a, provider: memory}]\n---\nname: x\n", "only one YAML document is allowed"),
		Entry("no mounts", "name: x\n", "mounts: at least one mount is needed"),
		Entry("non-canonical mount", "mounts: [{path: /a/, provider: memory}]\n", "mounts[0] (/a/): path must be a canonical absolute path"),
		Entry("mounted twice", "mounts: [{path: /a, provider: memory}, {path: /a, provider: memory}]\n", "mounts[1] (/a): path is mounted twice"),
		Entry("unknown provider", "mounts: [{path: /a, provider: s3}]\n", `mounts[0] (/a): provider must be "memory" or "disk"`),
		Entry("disk without dir", "mounts: [{path: /a, provider: disk}]\n", "mounts[0] (/a): a disk provider needs dir"),
		Entry("disk with files", "mounts: [{path: /a, provider: disk, dir: x, files: {b: c}}]\n", "mounts[0] (/a): files belong to a memory provider"),
		Entry("memory with dir", "mounts: [{path: /a, provider: memory, dir: x}]\n", "mounts[0] (/a): dir belongs to a disk provider"),
		Entry("bad networkRead", "mounts: [{path: /a, provider: memory}]\nnetworkRead: [a]\n", `networkRead rule "a": must be absolute`),
		Entry("bad public_url", "public_url: ftp://x\nmounts: [{path: /a, provider: memory}]\n", "public_url \"ftp://x\": must be an absolute http or https URL"),
		Entry("closed collection", "mounts: [{path: /a, provider: memory}]\ncollections: [{name: a, path: /a}]\n",
			"collections[0] (a): path /a is not opened to network clients; declare a networkRead rule or an overlay for it"),
		Entry("trusted proxy that is a name", "trusted_proxies: [proxy.example]\nmounts: [{path: /a, provider: memory}]\n", `trusted_proxies: trusted proxy "proxy.example": must be an IP address or a CIDR prefix`),
		Entry("allowed host with a scheme", "allowed_hosts: [\"https://proxy.example\"]\nmounts: [{path: /a, provider: memory}]\n", `allowed_hosts "https://proxy.example": must be a host name or IP address, without scheme or port`),
		Entry("negative read limit", "limits: {read_bytes: -1}\nmounts: [{path: /a, provider: memory}]\n", "limits.read_bytes -1: must be between 1 and 67108864 (0 for the default)"),
		Entry("search limit over the cap", "limits: {search_file_bytes: 1099511627776}\nmounts: [{path: /a, provider: memory}]\n", "limits.search_file_bytes 1099511627776: must be between 1 and 67108864"),
		Entry("negative registration burst", "rate_limits: {registration_burst: -1}\nmounts: [{path: /a, provider: memory}]\n", "rate_limits.registration_burst -1: must be at least 1 (0 for the default)"),
		Entry("negative device interval", "rate_limits: {device_every: -1s}\nmounts: [{path: /a, provider: memory}]\n", "rate_limits.device_every -1s: must be positive (0 for the default)"),
		Entry("misspelt rate limit", "rate_limits: {registration_evry: 1s}\nmounts: [{path: /a, provider: memory}]\n", "field registration_evry not found"),
		Entry("a request reply budget one read does not fit in", "limits: {read_bytes: 1048576, request_reply_bytes: 4194304}\nmounts: [{path: /a, provider: memory}]\n",
			"limits.request_reply_bytes 4194304: must be at least 7 times limits.read_bytes (1048576), so that one read's reply fits"),
		Entry("negative request scan budget", "limits: {request_scan_bytes: -1}\nmounts: [{path: /a, provider: memory}]\n", "limits.request_scan_bytes -1: must be positive"),
		Entry("negative request timeout", "limits: {request_timeout: -1s}\nmounts: [{path: /a, provider: memory}]\n", "limits.request_timeout -1s: must be positive"),
		Entry("negative connection cap", "connections: {max: -1}\nmounts: [{path: /a, provider: memory}]\n", "connections.max -1: must be positive"),
		Entry("negative per-address cap", "connections: {max_per_address: -1}\nmounts: [{path: /a, provider: memory}]\n", "connections.max_per_address -1: must be positive"),
		Entry("negative idle timeout", "connections: {idle_timeout: -1s}\nmounts: [{path: /a, provider: memory}]\n", "connections.idle_timeout -1s: must be positive"),
		Entry("bad collection name", "mounts: [{path: /a, provider: memory}]\nnetworkRead: [/a]\ncollections: [{name: A B, path: /a}]\n", "name must be lower-case letters"),
	)

	// Issue 15 item 1: a request is bounded as a whole, not only each call.
	It("bounds a request's work by the limits it names, with documented defaults", func() {
		cfg, err := config.Default()
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Limits.Request()).To(Equal(budget.Limits{ReplyBytes: 8 << 20, ScanBytes: 64 << 20, Timeout: 30 * time.Second, AnonymousTimeout: 500 * time.Millisecond, InFlightBytes: 32 << 20}))
		Expect(config.Limits{}.Request()).To(Equal(budget.Limits{ReplyBytes: 8 << 20, ScanBytes: 64 << 20, Timeout: 30 * time.Second, AnonymousTimeout: 500 * time.Millisecond, InFlightBytes: 32 << 20}))
		Expect(config.Limits{ReadBytes: 4 << 20}.Request().ReplyBytes).To(Equal(int64(28<<20)), "one read always fits")
		cfg, err = config.Parse([]byte("limits: {request_reply_bytes: 9000000, request_scan_bytes: 1000, request_timeout: 2m}\nmounts: [{path: /a, provider: memory}]\n"), "test.yaml")
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Limits.Request()).To(Equal(budget.Limits{ReplyBytes: 9000000, ScanBytes: 1000, Timeout: 2 * time.Minute, AnonymousTimeout: 500 * time.Millisecond, InFlightBytes: 32 << 20}))
	})

	// Issue 15 item 4: connections are capped and idle ones closed sooner.
	It("caps connections by the values it names, with documented defaults", func() {
		cfg, err := config.Default()
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Connections.Caps()).To(Equal(connlimit.Limits{Total: 1024, PerAddress: 128}))
		Expect(cfg.Connections.Idle()).To(Equal(30 * time.Second))
		Expect(config.Connections{}.Caps()).To(Equal(connlimit.Limits{Total: 1024, PerAddress: 128}))
		Expect(config.Connections{}.Idle()).To(Equal(30 * time.Second))
		cfg, err = config.Parse([]byte("connections: {max: 10, max_per_address: 2, idle_timeout: 5s}\nmounts: [{path: /a, provider: memory}]\n"), "test.yaml")
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Connections.Caps()).To(Equal(connlimit.Limits{Total: 10, PerAddress: 2}))
		Expect(cfg.Connections.Idle()).To(Equal(5 * time.Second))
	})

	It("reports a missing file", func() {
		_, err := config.Load(filepath.Join(GinkgoT().TempDir(), "missing.yaml"))
		Expect(err).To(MatchError(ContainSubstring("no such file")))
	})
})
