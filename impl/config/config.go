// Package config reads the reference host's configuration: its name, its
// mounts, the networkRead rules and overlays that open paths to network
// clients (source 5.7), and its content collections.
package config

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/conform-mcp/conform/impl/afs"
	"github.com/conform-mcp/conform/impl/budget"
	"github.com/conform-mcp/conform/impl/connlimit"
)

// Config is the whole configuration file.
type Config struct {
	// Name and Description are shown in initialize and mcp.json.
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// PublicURL is the {base_url} advertised everywhere (the challenge,
	// metadata, the verification URI, mcp.json). toolhost serve sets it from
	// --public-url, or else the listen address.
	PublicURL string `yaml:"public_url"`
	// AllowedHosts are names, besides the public URL's and loopback names,
	// that requests may carry in Host (a reverse proxy's). Any other name
	// is refused, on every endpoint, against DNS rebinding.
	AllowedHosts []string `yaml:"allowed_hosts"`
	// TrustedProxies are the reverse proxies, each an IP address or a CIDR
	// prefix, whose X-Forwarded-For is believed for the limits that key on
	// a client's address (package clientaddr). Without one, the limits key
	// on the connection's address.
	TrustedProxies []string `yaml:"trusted_proxies"`
	// Mounts bind path prefixes to providers.
	Mounts []Mount `yaml:"mounts"`
	// NetworkRead are the source's networkRead rules: a prefix or a glob
	// whose paths network clients may list, read, stat, search and explain.
	NetworkRead []string `yaml:"networkRead"`
	// Collections are the content collections; none means no content tools.
	Collections []Collection `yaml:"collections"`
	// Limits bound what one call may take from the host.
	Limits Limits `yaml:"limits"`
	// RateLimits bound how fast one address may register and sign in
	// (ratelimits.go).
	RateLimits RateLimits `yaml:"rate_limits"`
	// Connections cap the connections toolhost serve holds.
	Connections Connections `yaml:"connections"`
}

// Connections cap the connections the host holds, so that idle keep-alive
// connections cannot use up its file descriptors (issue 15 item 4). Zero
// means the default.
type Connections struct {
	// Max caps the connections held at once. Default 1024.
	Max int `yaml:"max"`
	// MaxPerAddress caps those of one source address (one /64 for IPv6).
	// Default 128.
	MaxPerAddress int `yaml:"max_per_address"`
	// IdleTimeout is how long a keep-alive connection may wait for its next
	// request. Default 30s.
	IdleTimeout time.Duration `yaml:"idle_timeout"`
}

// Defaults of Connections.
const (
	DefaultMaxConnections           = 1024
	DefaultMaxConnectionsPerAddress = 128
	DefaultIdleTimeout              = 30 * time.Second
)

// Caps returns the connection caps, defaults filled in.
func (c Connections) Caps() connlimit.Limits {
	l := connlimit.Limits{Total: c.Max, PerAddress: c.MaxPerAddress}
	if l.Total == 0 {
		l.Total = DefaultMaxConnections
	}
	if l.PerAddress == 0 {
		l.PerAddress = DefaultMaxConnectionsPerAddress
	}
	return l
}

// Idle returns IdleTimeout, default filled in.
func (c Connections) Idle() time.Duration {
	if c.IdleTimeout == 0 {
		return DefaultIdleTimeout
	}
	return c.IdleTimeout
}

// Limits bound what one tool call takes, so that memory never follows the
// size of a file a caller names, and what one request takes, all its calls
// together (a 2025-03-26 batch holds up to 64). Zero means the default.
type Limits struct {
	// ReadBytes is the most afs_read (and get_content) returns at once;
	// the rest is read with an offset. Default 1 MiB.
	ReadBytes int `yaml:"read_bytes"`
	// SearchFileBytes is the largest file whose content afs_search reads;
	// larger files are skipped and counted. Default 1 MiB.
	SearchFileBytes int64 `yaml:"search_file_bytes"`
	// RequestReplyBytes bounds the JSON of all the tool results of one
	// request. Default 8 MiB, or seven times ReadBytes when that is more:
	// JSON may write a byte of text as six, and one read must fit.
	RequestReplyBytes int64 `yaml:"request_reply_bytes"`
	// RequestScanBytes bounds the file content all the searches of one
	// request read. Default 64 MiB.
	RequestScanBytes int64 `yaml:"request_scan_bytes"`
	// RequestTimeout bounds how long the tool calls of one request run.
	// Default 30s.
	RequestTimeout time.Duration `yaml:"request_timeout"`
	// InFlightReplyBytes bounds the reply bytes all requests hold at once,
	// host-wide: a read holds seven times what it reads until its answer
	// is written, and waits for room within its request's time. Default
	// 32 MiB, or seven times ReadBytes when that is more.
	InFlightReplyBytes int64 `yaml:"inflight_reply_bytes"`
	// AnonymousRequestTimeout bounds them for a request without a
	// credential, and so what CPU it takes. Default 500ms.
	AnonymousRequestTimeout time.Duration `yaml:"anonymous_request_timeout"`
	// ConcurrentSearches is how many searches (afs_search, search_content)
	// run at once on the whole host; others wait, within their request's
	// time. Default half the CPUs, at least 1.
	ConcurrentSearches int `yaml:"concurrent_searches"`
	// OverlayBytes bounds what the files of each writable disk mount hold
	// in all. Default 1 GiB.
	OverlayBytes int64 `yaml:"overlay_bytes"`
	// OverlayFileBytes bounds one file of a writable disk mount. Default
	// 64 MiB.
	OverlayFileBytes int64 `yaml:"overlay_file_bytes"`
	// DiskFreeBytes is what a write to a disk mount must leave free on its
	// file system, so that the store beside it keeps working. Default 64 MiB.
	DiskFreeBytes int64 `yaml:"disk_free_bytes"`
}

// Defaults of the quotas of writable disk mounts.
const (
	DefaultOverlayBytes     = 1 << 30
	DefaultOverlayFileBytes = 64 << 20
	DefaultDiskFreeBytes    = 64 << 20
)

// Quota returns the quota of a writable disk mount, defaults filled in.
func (l Limits) Quota() afs.Quota {
	q := afs.Quota{TotalBytes: l.OverlayBytes, FileBytes: l.OverlayFileBytes, FreeBytes: l.DiskFreeBytes}
	if q.TotalBytes == 0 {
		q.TotalBytes = DefaultOverlayBytes
	}
	if q.FileBytes == 0 {
		q.FileBytes = DefaultOverlayFileBytes
	}
	if q.FreeBytes == 0 {
		q.FreeBytes = DefaultDiskFreeBytes
	}
	return q
}

// MaxLimitBytes caps both limits of one call: one call never holds more
// than this.
const MaxLimitBytes = 64 << 20

// Defaults of the limits of one request.
const (
	DefaultRequestReplyBytes = 8 << 20
	DefaultRequestScanBytes  = 64 << 20
	DefaultRequestTimeout    = 30 * time.Second
	// DefaultAnonymousRequestTimeout keeps an anonymous request under
	// 1 CPU-s with the garbage collector's share (issue 26 item 6).
	DefaultAnonymousRequestTimeout = 500 * time.Millisecond
	// DefaultInFlightReplyBytes keeps the host under 500 MB whatever the
	// mix of requests (issue 26 item 1).
	DefaultInFlightReplyBytes = 32 << 20
)

// Request returns the limits of one request, defaults filled in.
func (l Limits) Request() budget.Limits {
	out := budget.Limits{ReplyBytes: l.RequestReplyBytes, ScanBytes: l.RequestScanBytes, Timeout: l.RequestTimeout,
		AnonymousTimeout: l.AnonymousRequestTimeout, InFlightBytes: l.InFlightReplyBytes}
	if out.ReplyBytes == 0 {
		out.ReplyBytes = max(DefaultRequestReplyBytes, budget.ReplyFactor*int64(l.readBytes()))
	}
	if out.ScanBytes == 0 {
		out.ScanBytes = DefaultRequestScanBytes
	}
	if out.Timeout == 0 {
		out.Timeout = DefaultRequestTimeout
	}
	if out.AnonymousTimeout == 0 {
		out.AnonymousTimeout = DefaultAnonymousRequestTimeout
	}
	if out.InFlightBytes == 0 {
		out.InFlightBytes = max(DefaultInFlightReplyBytes, budget.ReplyFactor*int64(l.readBytes()))
	}
	return out
}

// Searches returns how many searches may run at once on the host, default
// filled in: half the CPUs, so that a flood of searches leaves the others
// to every other request (issue 26 item 6).
func (l Limits) Searches() int {
	if l.ConcurrentSearches > 0 {
		return l.ConcurrentSearches
	}
	return max(1, runtime.GOMAXPROCS(0)/2)
}

// readBytes is ReadBytes, default filled in.
func (l Limits) readBytes() int {
	if l.ReadBytes == 0 {
		return afs.DefaultReadBytes
	}
	return l.ReadBytes
}

// Provider kinds a mount can use.
const (
	ProviderMemory = "memory"
	ProviderDisk   = "disk"
)

// Mount is one mount point.
type Mount struct {
	// Path is the canonical prefix served.
	Path string `yaml:"path"`
	// Provider is "memory" or "disk".
	Provider string `yaml:"provider"`
	// Overlay declares a resolver overlay: every operation beneath Path is
	// opened to network clients.
	Overlay bool `yaml:"overlay"`
	// ReadOnly removes write and delete from the provider.
	ReadOnly bool `yaml:"read_only"`
	// Files are a memory provider's files, by path relative to the mount.
	Files map[string]string `yaml:"files"`
	// Dir is a disk provider's directory, relative to the data directory
	// unless absolute.
	Dir string `yaml:"dir"`
}

// Collection is one content collection.
type Collection struct {
	// Name identifies the collection in the content tools.
	Name string `yaml:"name"`
	// Path is the directory whose files are the content.
	Path string `yaml:"path"`
}

//go:embed default.yaml
var defaultYAML []byte

// Default returns the embedded default configuration.
func Default() (Config, error) { return Parse(defaultYAML, "default.yaml") }

// Load reads and validates the configuration file at file.
func Load(file string) (Config, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	return Parse(data, file)
}

// Parse decodes and validates a configuration. Decoding is strict: a key
// the configuration does not know is an error naming its line, since a
// misspelt networkRead or overlay would otherwise silently leave a path
// closed or open.
func Parse(data []byte, name string) (Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return Config{}, fmt.Errorf("config %s: the file is empty", name)
		}
		return Config{}, fmt.Errorf("config %s: %w", name, err)
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return Config{}, fmt.Errorf("config %s: only one YAML document is allowed", name)
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", name, err)
	}
	return c, nil
}
