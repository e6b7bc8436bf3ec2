package config

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"

	"github.com/conform-mcp/conform/impl/afs"
	"github.com/conform-mcp/conform/impl/budget"
	"github.com/conform-mcp/conform/impl/clientaddr"
)

var collectionName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// hostName is a DNS name, an IPv4 address, or an IPv6 address in brackets
// or not.
var hostName = regexp.MustCompile(`^(\[[0-9A-Fa-f:.]+\]|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9.])?)$`)

// Validate reports every problem of c, one per line.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }

	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			bad("public_url %q: must be an absolute http or https URL without query or fragment", c.PublicURL)
		}
	}
	for _, h := range c.AllowedHosts {
		if !hostName.MatchString(h) {
			bad("allowed_hosts %q: must be a host name or IP address, without scheme or port", h)
		}
	}
	for _, p := range c.TrustedProxies {
		if _, err := clientaddr.ParseProxy(p); err != nil {
			bad("trusted_proxies: %v", err)
		}
	}
	if c.Limits.ReadBytes < 0 || c.Limits.ReadBytes > MaxLimitBytes {
		bad("limits.read_bytes %d: must be between 1 and %d (0 for the default)", c.Limits.ReadBytes, MaxLimitBytes)
	}
	if c.Limits.SearchFileBytes < 0 || c.Limits.SearchFileBytes > MaxLimitBytes {
		bad("limits.search_file_bytes %d: must be between 1 and %d (0 for the default)", c.Limits.SearchFileBytes, MaxLimitBytes)
	}
	errs = append(errs, c.RateLimits.validate()...)
	if r := c.Limits.RequestReplyBytes; r < 0 || r > 0 && r < budget.ReplyFactor*int64(c.Limits.readBytes()) {
		bad("limits.request_reply_bytes %d: must be at least %d times limits.read_bytes (%d), so that one read's reply fits (0 for the default)", r, budget.ReplyFactor, c.Limits.readBytes())
	}
	if c.Limits.RequestScanBytes < 0 {
		bad("limits.request_scan_bytes %d: must be positive (0 for the default)", c.Limits.RequestScanBytes)
	}
	for _, q := range []struct {
		name string
		v    int64
	}{{"overlay_bytes", c.Limits.OverlayBytes}, {"overlay_file_bytes", c.Limits.OverlayFileBytes}, {"disk_free_bytes", c.Limits.DiskFreeBytes}} {
		if q.v < 0 {
			bad("limits.%s %d: must be positive (0 for the default)", q.name, q.v)
		}
	}
	if c.Limits.AnonymousRequestTimeout < 0 {
		bad("limits.anonymous_request_timeout %s: must be positive (0 for the default)", c.Limits.AnonymousRequestTimeout)
	}
	if r := c.Limits.InFlightReplyBytes; r < 0 || r > 0 && r < budget.ReplyFactor*int64(c.Limits.readBytes()) {
		bad("limits.inflight_reply_bytes %d: must be at least %d times limits.read_bytes (%d), so that one read fits (0 for the default)", r, budget.ReplyFactor, c.Limits.readBytes())
	}
	if c.Limits.ConcurrentSearches < 0 {
		bad("limits.concurrent_searches %d: must be positive (0 for the default)", c.Limits.ConcurrentSearches)
	}
	if c.Limits.RequestTimeout < 0 {
		bad("limits.request_timeout %s: must be positive (0 for the default)", c.Limits.RequestTimeout)
	}
	if c.Connections.Max < 0 {
		bad("connections.max %d: must be positive (0 for the default)", c.Connections.Max)
	}
	if c.Connections.MaxPerAddress < 0 {
		bad("connections.max_per_address %d: must be positive (0 for the default)", c.Connections.MaxPerAddress)
	}
	if c.Connections.IdleTimeout < 0 {
		bad("connections.idle_timeout %s: must be positive (0 for the default)", c.Connections.IdleTimeout)
	}
	if len(c.Mounts) == 0 {
		bad("mounts: at least one mount is needed")
	}
	seen := map[string]bool{}
	var overlays []string
	for i, m := range c.Mounts {
		where := fmt.Sprintf("mounts[%d] (%s)", i, m.Path)
		if p, err := afs.Canonical(m.Path); err != nil || p != m.Path {
			bad("%s: path must be a canonical absolute path", where)
		} else if m.Overlay {
			overlays = append(overlays, m.Path)
		}
		if seen[m.Path] {
			bad("%s: path is mounted twice", where)
		}
		seen[m.Path] = true
		switch m.Provider {
		case ProviderMemory:
			if m.Dir != "" {
				bad("%s: dir belongs to a disk provider", where)
			}
		case ProviderDisk:
			if m.Dir == "" {
				bad("%s: a disk provider needs dir", where)
			}
			if len(m.Files) > 0 {
				bad("%s: files belong to a memory provider", where)
			}
		default:
			bad("%s: provider must be %q or %q", where, ProviderMemory, ProviderDisk)
		}
	}
	policy, err := afs.NewPolicy(c.NetworkRead, overlays)
	if err != nil {
		bad("%v", err)
	}
	names := map[string]bool{}
	for i, col := range c.Collections {
		where := fmt.Sprintf("collections[%d] (%s)", i, col.Name)
		if !collectionName.MatchString(col.Name) {
			bad("%s: name must be lower-case letters, digits, - and _", where)
		}
		if names[col.Name] {
			bad("%s: name is declared twice", where)
		}
		names[col.Name] = true
		if p, err := afs.Canonical(col.Path); err != nil || p != col.Path {
			bad("%s: path must be a canonical absolute path", where)
			continue
		}
		// Source 5.7: a collection does not open its path; say so at start
		// rather than at every call.
		if policy != nil && !policy.Decide(col.Path).Open.Has(afs.OpRead) {
			bad("%s: path %s is not opened to network clients; declare a networkRead rule or an overlay for it", where, col.Path)
		}
	}
	return errors.Join(errs...)
}
