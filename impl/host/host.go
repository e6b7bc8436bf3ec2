// Package host assembles the reference host: the agent file system and
// content from the configuration, the MCP server behind the gate, the
// discovery document, and whatever the OAuth authority mounts.
package host

import (
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"

	"github.com/conform-mcp/conform/impl/baseurl"
	"github.com/conform-mcp/conform/impl/budget"
	"github.com/conform-mcp/conform/impl/config"
	"github.com/conform-mcp/conform/impl/content"
	"github.com/conform-mcp/conform/impl/gate"
	"github.com/conform-mcp/conform/impl/origin"
	"github.com/conform-mcp/conform/impl/role"
	"github.com/conform-mcp/conform/impl/tools"
)

// Authority is the OAuth side of the host: it verifies credentials for the
// gate and mounts its own endpoints (registration, device authorization,
// token, metadata).
type Authority interface {
	gate.Verifier
	Register(mux *http.ServeMux)
}

// Options are the host's run-time choices that are not configuration.
type Options struct {
	// DataDir holds the host's files (the overlay's disk tree). Required;
	// Open provides a temporary one when its caller gives none.
	DataDir string
	// Auth verifies credentials and serves the OAuth endpoints. Required.
	Auth Authority
}

// Host is one running reference host.
type Host struct {
	handler http.Handler
	closers []func() error
	// ownerSecretFile is set by Open (OwnerSecretFile).
	ownerSecretFile string
}

// New builds the host described by cfg.
func New(cfg config.Config, opts Options) (*Host, error) {
	if opts.Auth == nil {
		return nil, errors.New("host: an Authority is required")
	}
	if opts.DataDir == "" {
		return nil, errors.New("host: a data directory is required")
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	h := &Host{}
	fsys, err := h.buildFS(cfg, opts.DataDir)
	if err != nil {
		return nil, errors.Join(err, h.Close())
	}
	var lib *content.Library
	if len(cfg.Collections) > 0 {
		cols := make([]content.Collection, 0, len(cfg.Collections))
		for _, c := range cfg.Collections {
			cols = append(cols, content.Collection{Name: c.Name, Path: c.Path})
		}
		lib = content.NewLibrary(fsys, cols)
	}
	srv := tools.New(tools.Info{Name: cfg.Name, Version: version()}, fsys, lib, cfg.Limits.Searches())
	resolver := baseurl.Resolver{Public: cfg.PublicURL}
	hosts := baseurl.NewHosts(cfg.PublicURL, cfg.AllowedHosts)

	mux := http.NewServeMux()
	// No method in the pattern: the gate itself answers other methods with
	// 405 and Allow: POST, before anything else is looked at.
	mux.Handle("/mcp", origin.Guard(gate.New(budget.Bound(srv.Handler(), cfg.Limits.Request()), gate.Config{
		Verifier:       opts.Auth,
		AnonymousTools: srv.Anonymous(),
		ToolScopes:     srv.Scopes(),
		// The scopes the protected-resource metadata lists.
		ChallengeScopes: role.Scopes,
		BaseURL:         resolver,
	}), resolver, hosts))
	mux.Handle("GET /.well-known/mcp.json", discovery{
		name:          cfg.Name,
		description:   cfg.Description,
		resolver:      resolver,
		anonymous:     srv.Anonymous(),
		authenticated: srv.Authenticated(),
	})
	opts.Auth.Register(mux)
	h.handler = checkHost(mux, hosts)
	return h, nil
}

// Handler serves every endpoint of the host.
func (h *Host) Handler() http.Handler { return h.handler }

// Close releases the host's files, in the reverse order of opening.
func (h *Host) Close() error {
	var errs []error
	for i := len(h.closers) - 1; i >= 0; i-- {
		errs = append(errs, h.closers[i]())
	}
	h.closers = nil
	return errors.Join(errs...)
}

// version is the module version the binary was built from.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
