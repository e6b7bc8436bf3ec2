package host

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/conform-mcp/conform/impl/baseurl"
	"github.com/conform-mcp/conform/impl/clientaddr"
	"github.com/conform-mcp/conform/impl/config"
	"github.com/conform-mcp/conform/impl/oauth"
	"github.com/conform-mcp/conform/impl/owner"
	"github.com/conform-mcp/conform/impl/store"
)

// StoreFile is the name of the store inside the data directory.
const StoreFile = "conform.db"

// OpenOptions are the run-time choices of a complete host.
type OpenOptions struct {
	// DataDir holds the store and the overlay's files; a temporary directory,
	// removed by Close, when empty.
	DataDir string
	// Clock is the time every time rule reads; the wall clock when nil.
	Clock oauth.Clock
	// Logger receives the OAuth server's log lines; discarded when nil.
	Logger *slog.Logger
	// OwnerSecret, when set, is the owner secret (from TOOLHOST_OWNER_SECRET);
	// otherwise it is the one in the data directory's file, created at first
	// start (package owner).
	OwnerSecret string
	// JudgeSecret judges an owner secret the host did not create: the given
	// one, or a file already in the data directory (strength.Check, in
	// toolhost). Without it, Open takes only a secret it creates itself, as
	// in a temporary data directory.
	JudgeSecret owner.Judge
}

// Open builds a complete reference host: its store under the data directory
// (the instance identity lives there, so credentials are bound to this
// instance and survive a restart), the owner secret, the OAuth server, and
// the host itself.
func Open(cfg config.Config, o OpenOptions) (*Host, error) {
	var closers []func() error
	fail := func(err error) (*Host, error) {
		for i := len(closers) - 1; i >= 0; i-- {
			err = errors.Join(err, closers[i]())
		}
		return nil, err
	}
	dir, openStore := o.DataDir, store.Open
	if dir == "" {
		tmp, err := os.MkdirTemp("", "conform-host-")
		if err != nil {
			return nil, fmt.Errorf("host: data directory: %w", err)
		}
		dir = tmp
		closers = append(closers, func() error { return os.RemoveAll(tmp) })
		openStore = store.OpenTemporary
	}
	st, err := openStore(filepath.Join(dir, StoreFile))
	if err != nil {
		return fail(err)
	}
	closers = append(closers, st.Close)
	secretFile, err := owner.Prepare(st, dir, o.OwnerSecret, o.JudgeSecret)
	if err != nil {
		return fail(err)
	}
	clients, err := clientaddr.New(cfg.TrustedProxies)
	if err != nil {
		return fail(err)
	}
	auth, err := oauth.New(oauth.Options{
		Store:             st,
		Clock:             o.Clock,
		BaseURL:           baseurl.Resolver{Public: cfg.PublicURL},
		ClientAddr:        clients,
		Logger:            o.Logger,
		RegistrationBurst: cfg.RateLimits.RegistrationBurst,
		RegistrationEvery: cfg.RateLimits.RegistrationEvery,
		DeviceBurst:       cfg.RateLimits.DeviceBurst,
		DeviceEvery:       cfg.RateLimits.DeviceEvery,
	})
	if err != nil {
		return fail(err)
	}
	h, err := New(cfg, Options{DataDir: dir, Auth: auth})
	if err != nil {
		return fail(err)
	}
	h.closers = append(closers, h.closers...)
	h.ownerSecretFile = secretFile
	return h, nil
}

// OwnerSecretFile is the file that holds the owner secret, or "" when the
// secret was given (OpenOptions.OwnerSecret). It is for a process that runs
// the host and acts as its owner, as conform's in-process run does; the
// file lives as long as the host.
func (h *Host) OwnerSecretFile() string { return h.ownerSecretFile }
