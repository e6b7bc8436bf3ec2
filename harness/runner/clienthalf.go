package runner

import (
	"context"
	"fmt"
	"io/fs"
	"os"

	"github.com/cucumber/godog"

	"github.com/conform-mcp/conform/features/clients"
	"github.com/conform-mcp/conform/harness/clientsteps"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/spec"
)

// ClientOptions select the client half of a pack and the client it judges:
// conform plays the pack's scripted servers, runs Client.Command against
// them, and judges the requests the client sends (features/clients).
type ClientOptions struct {
	// Options select the scenarios and how they are reported, as for a
	// server. Their Target is not used (conform plays the servers), nor
	// their Concurrency (client scenarios run one at a time).
	Options
	// Client is how the user's client is run. Its StateDir, when "", is a
	// directory the run makes and removes.
	Client clientsteps.Config
}

// ClientHalf returns the client half of the pack named name ("" is the
// default): the same requirements, whose role: client ones its features
// (clients.FS, in a folder named after the pack) check.
func ClientHalf(name string) (*Pack, error) {
	p, err := LookupPack(name)
	if err != nil {
		return nil, err
	}
	return &Pack{Name: p.Name, Role: spec.ClientSide, Features: p.Name}, nil
}

// RunClient runs the client half of a pack against the user's client. Its
// scenarios run one at a time, in file order: each starts the client, and a
// real client keeps what it stores in one state directory for the whole
// run, which two starts at once could both write.
func RunClient(ctx context.Context, opts ClientOptions) (outcome.Run, error) {
	return runClient(ctx, opts, clients.FS)
}

func runClient(ctx context.Context, opts ClientOptions, fsys fs.FS) (outcome.Run, error) {
	pack, err := ClientHalf(opts.Pack)
	if err != nil {
		return outcome.Run{}, err
	}
	b, err := begin(opts.Options, pack, fsys)
	if err != nil {
		return outcome.Run{}, err
	}
	defer b.done()
	cfg := opts.Client
	cfg.Pack = pack.Name
	if cfg.StateDir == "" {
		dir, err := os.MkdirTemp("", "conform-client-state-")
		if err != nil {
			return outcome.Run{}, fmt.Errorf("make the client's state directory: %w", err)
		}
		defer os.RemoveAll(dir)
		cfg.StateDir = dir
	}
	run := outcome.Run{Target: cfg.Command, Pack: b.sp.Pack, Role: spec.ClientSide, Started: b.now(), Strict: opts.Strict}
	// One initializer for every pass: the control, run once, is shared
	// through it.
	initialize := clientsteps.Initializer(cfg, b.notes)
	refused := runPasses(ctx, b.col, b.suite, fsys, b.paths, passes(b.tags, 1), func() func(*godog.ScenarioContext) { return initialize })
	run.Duration = b.now().Sub(run.Started)
	run.Results = b.col.ordered()
	return run, refused
}

// ListClient returns the selected scenarios of a pack's client half ("" for
// the default pack) without running any.
func ListClient(pack, tags string, sections []string) ([]Listing, error) {
	p, err := ClientHalf(pack)
	if err != nil {
		return nil, err
	}
	return listSelected(clients.FS, p, tags, sections)
}
