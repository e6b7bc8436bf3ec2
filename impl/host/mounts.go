package host

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/conform-mcp/conform/impl/afs"
	"github.com/conform-mcp/conform/impl/config"
)

// buildFS turns the configured mounts into providers. Disk directories are
// created under dataDir (unless absolute) and closed by Close.
func (h *Host) buildFS(cfg config.Config, dataDir string) (*afs.FS, error) {
	mounts := make([]afs.Mount, 0, len(cfg.Mounts))
	for _, m := range cfg.Mounts {
		p, err := h.provider(m, dataDir, cfg.Limits.Quota())
		if err != nil {
			return nil, fmt.Errorf("host: mount %s: %w", m.Path, err)
		}
		mounts = append(mounts, afs.Mount{Path: m.Path, Provider: p, Overlay: m.Overlay})
	}
	fsys, err := afs.New(mounts, cfg.NetworkRead, afs.Limits{ReadBytes: cfg.Limits.ReadBytes, SearchFileBytes: cfg.Limits.SearchFileBytes})
	if err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	return fsys, nil
}

func (h *Host) provider(m config.Mount, dataDir string, quota afs.Quota) (afs.Provider, error) {
	var p afs.ReadableProvider
	switch m.Provider {
	case config.ProviderMemory:
		mem, err := afs.NewMemory(m.Files, time.Now)
		if err != nil {
			return nil, err
		}
		if !m.ReadOnly {
			return mem, nil
		}
		p = mem
	case config.ProviderDisk:
		dir := m.Dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(dataDir, dir)
		}
		disk, err := afs.NewDisk(dir)
		if err != nil {
			return nil, err
		}
		h.closers = append(h.closers, disk.Close)
		if !m.ReadOnly {
			// Only a writable mount's writes leave temporary files.
			if _, err := disk.RemoveUnfinished(); err != nil {
				return nil, err
			}
			if err := disk.Limit(quota); err != nil {
				return nil, err
			}
			return disk, nil
		}
		p = disk
	default:
		return nil, fmt.Errorf("unknown provider %q", m.Provider)
	}
	return afs.ReadOnly(p), nil
}
