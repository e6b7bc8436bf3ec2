// Package runner runs the embedded features against a target with godog,
// always Strict, and returns the outcome model of the run.
package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cucumber/godog"
	"github.com/cucumber/godog/formatters"

	"github.com/conform-mcp/conform/features"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/steps"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/spec"
)

// Options select what to run and how.
type Options struct {
	Target *target.Target
	// Pack names the specification pack to run (Packs); "" is the default,
	// the source document.
	Pack string
	// Tags is a godog tag expression ("@T401-1,@T401-2 && ~@needs-clock").
	Tags string
	// Sections select scenarios by source section ("7.3", or "7" for all of 7.x).
	Sections []string
	// Scenario, when set, runs that one scenario alone, named by its ID or
	// its stable ID (the other selections still apply).
	Scenario string
	// Strict lets SHOULD-level failures decide the exit code.
	Strict bool
	// Expected lists scenario IDs that may fail without failing the run.
	Expected map[string]bool
	// Concurrency is how many scenarios run at once (passes); 1 or less
	// runs them one at a time.
	Concurrency int
	// Observer, if set, hears about scenarios as they run and long waits.
	Observer Observer
	// Now is the clock for durations; time.Now when nil.
	Now func() time.Time
}

var runs atomic.Int64

// RunLast tags a scenario that must run after every other scenario of a run,
// whatever its file: one that spends something the others need, such as the
// per-address registration allowance the registration-limit probe uses up
// (source 7.3 and 8), or one that judges what the run's end looks like.
const RunLast = "@run-last"

// Run executes the selected scenarios one at a time, in file order, except
// that those tagged RunLast come after all the others (in file order among
// themselves): order is part of the contract.
func Run(ctx context.Context, opts Options) (outcome.Run, error) {
	return run(ctx, opts, features.FS)
}

// run is Run over the features in fsys; the runner's tests give it features
// of their own (an undefined step) or a subset of the embedded ones.
func run(ctx context.Context, opts Options, fsys fs.FS) (outcome.Run, error) {
	pack, err := LookupPack(opts.Pack)
	if err != nil {
		return outcome.Run{}, err
	}
	b, err := begin(opts, pack, fsys)
	if err != nil {
		return outcome.Run{}, err
	}
	defer b.done()

	suite := steps.NewSuite(opts.Target, b.notes)
	suite.Only = b.only
	if opts.Observer != nil {
		suite.Announce = opts.Observer.Waiting
	}
	run := outcome.Run{Target: opts.Target.Name(), Pack: b.sp.Pack, Started: b.now(), Strict: opts.Strict}
	refused := runPasses(ctx, b.col, b.suite, fsys, b.paths, passes(b.tags, opts.Concurrency), func() func(*godog.ScenarioContext) {
		return pack.Vocabulary(suite)
	})
	run.Duration = b.now().Sub(run.Started)
	run.Revision = suite.MCP.Revision()
	run.Results = b.col.ordered()
	return run, refused
}

// begun is what a run of either half has before its passes: the pack's
// requirements, the selection in godog's terms, the run's clock, and its
// collector, registered under the suite name until done.
type begun struct {
	sp         *spec.Spec
	tags, only string
	paths      []string
	now        func() time.Time
	notes      *steps.Notes
	col        *collector
	suite      string
	done       func()
}

// begin loads pack's requirements, turns opts' selection into godog's over
// the features in fsys, and registers the run's collector.
func begin(opts Options, pack *Pack, fsys fs.FS) (*begun, error) {
	sp, err := spec.LoadPack(pack.Name)
	if err != nil {
		return nil, err
	}
	b := &begun{sp: sp, now: opts.Now, notes: steps.NewNotes()}
	b.tags, b.paths, b.only, err = selectScenarios(fsys, pack, sp, opts.Tags, opts.Sections, opts.Scenario)
	if err != nil {
		return nil, err
	}
	if b.now == nil {
		b.now = time.Now
	}
	b.col = newCollector(sp, b.notes, opts.Observer, opts.Expected, b.now, b.only)
	b.suite, b.done = b.col.register()
	return b, nil
}

// runPasses runs a run's passes with godog as the suite named suite, which
// reports to the collector col registered under it, each pass with the
// scenario initializer
// initializer returns; a pass whose tags no feature file holds is skipped
// unparsed. It stops when ctx ends, and at the first pass godog refuses.
func runPasses(ctx context.Context, col *collector, suite string, fsys fs.FS, paths []string, ps []pass, initializer func() func(*godog.ScenarioContext)) error {
	for _, p := range ps {
		if ctx.Err() != nil {
			return nil
		}
		passPaths := paths
		if len(p.needs) > 0 {
			var err error
			if passPaths, err = holding(fsys, paths, p.needs); err != nil {
				return err
			}
			if len(passPaths) == 0 {
				continue
			}
		}
		col.setPass(p.order)
		status := godog.TestSuite{
			Name:                suite,
			ScenarioInitializer: initializer(),
			Options:             suiteOptions(ctx, fsys, passPaths, p),
		}.Run()
		if status == 2 {
			return fmt.Errorf("the feature runner refused its options (tags %q)", p.tags)
		}
	}
	return nil
}

// selectScenarios turns a run's selection into godog's: the tag expression,
// the pack's feature paths, and the ID of the one scenario asked for ("" for
// all selected).
func selectScenarios(fsys fs.FS, pack *Pack, sp *spec.Spec, tagExpr string, sections []string, scenario string) (tags string, paths []string, only string, err error) {
	tags, err = Selection(sp, tagExpr, sections)
	if err != nil {
		return "", nil, "", err
	}
	paths, err = packPaths(fsys, pack)
	if err != nil {
		return "", nil, "", err
	}
	if scenario != "" {
		one, err := findIn(fsys, pack, sp, scenario)
		if err != nil {
			return "", nil, "", err
		}
		// Its @id: tag selects the scenario, every row of an outline; the
		// rows but the one asked for are then skipped unseen.
		only = one.ID
		for _, t := range one.Tags {
			if strings.HasPrefix(t, idTag) {
				tags = and(tags, t)
			}
		}
	}
	return tags, paths, only, nil
}

// newCollector is a run's collector of the outcome model.
func newCollector(sp *spec.Spec, notes *steps.Notes, observer Observer, expected map[string]bool, now func() time.Time, only string) *collector {
	return &collector{
		spec: sp, notes: notes, observer: observer, expected: expected, now: now, only: only,
		nodes: map[string]node{}, names: map[string]string{}, running: map[string]*inflight{},
	}
}

// collectorFormat is the one godog formatter conform registers, once:
// godog keeps formatters in a global registry it reads without a lock when a
// suite starts, so a run that registered its own while another started
// would race with it. Each run names its suite instead, and the formatter
// finds the run's collector by that name.
const collectorFormat = "conform-collector"

var (
	// collectors are the running runs' collectors, by suite name.
	collectors     sync.Map
	registerFormat sync.Once
)

// register enters the collector under a suite name of its own, which
// godog gives the formatter, and returns the name and the function that
// removes it at the run's end.
func (c *collector) register() (suite string, done func()) {
	registerFormat.Do(func() {
		godog.Format(collectorFormat, "builds the conform outcome model", func(suite string, _ io.Writer) formatters.Formatter {
			c, _ := collectors.Load(suite)
			return c.(*collector)
		})
	})
	suite = fmt.Sprintf("conform-%d", runs.Add(1))
	collectors.Store(suite, c)
	return suite, func() { collectors.Delete(suite) }
}

// suiteOptions are godog's options for one pass: always Strict, reported to
// the run's collector only (collectorFormat).
func suiteOptions(ctx context.Context, fsys fs.FS, paths []string, p pass) *godog.Options {
	return &godog.Options{
		Format:         collectorFormat,
		Strict:         true,
		FS:             fsys,
		Paths:          paths,
		Tags:           p.tags,
		Output:         io.Discard,
		Concurrency:    p.concurrency,
		DefaultContext: ctx,
	}
}

// DefaultConcurrency is how many scenarios conform runs at once unless told
// otherwise: enough to hide most of a network's round trips, few enough
// that a host under test sees no more than a handful of clients.
const DefaultConcurrency = 8

// serial are the tags of a scenario that must run alone even when others
// run at once: it moves the host's clock (or waits in real time), which every
// scenario running beside it would see, or it reads back a file other
// scenarios write (@serial: a marker written to paths.writable).
var serial = []string{"@needs-clock", "@needs-time", "@serial"}

// pass is one godog run over the suite's shared state and collector.
type pass struct {
	tags        string
	concurrency int
	// order places its scenarios in the report: 0 with the run's body, 1
	// after it (RunLast).
	order int
	// needs, when set, are tags one of which a scenario of the pass must
	// carry: only the feature files that mention one are parsed for it.
	needs []string
}

// passes are the passes of a run: everything else, then what must come
// last (RunLast), one scenario at a time; with a concurrency above one,
// the scenarios of the first pass run that many at once, except the serial
// ones, which then run alone in a pass of their own before the last. The
// report orders scenarios by file and line whatever the passes, so that
// verdicts and reports do not depend on the concurrency.
func passes(tags string, concurrency int) []pass {
	last := pass{tags: and(tags, RunLast), concurrency: 1, order: 1, needs: []string{RunLast}}
	if concurrency <= 1 {
		return []pass{{tags: and(tags, "~"+RunLast), concurrency: 1}, last}
	}
	body := "~" + RunLast
	for _, t := range serial {
		body += " && ~" + t
	}
	return []pass{
		{tags: and(tags, body), concurrency: concurrency},
		{tags: and(tags, "~"+RunLast+" && "+strings.Join(serial, ",")), concurrency: 1, needs: serial},
		last,
	}
}

// holding returns the feature files under paths (files, or folders walked
// for *.feature as godog walks them) whose text mentions one of tags. A
// scenario carries a tag only where its file says it (on the scenario, its
// rule or its feature), so the passes that select a few tagged scenarios
// parse a few files, not the whole pack once more. Mentions in comments or
// longer tags only add files whose scenarios the tag expression then leaves
// out.
func holding(fsys fs.FS, paths []string, tags []string) ([]string, error) {
	var out []string
	for _, root := range paths {
		err := fs.WalkDir(fsys, root, func(name string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || (name != root && !strings.HasSuffix(name, ".feature")) {
				return err
			}
			text, err := fs.ReadFile(fsys, name)
			if err != nil {
				return err
			}
			for _, t := range tags {
				if bytes.Contains(text, []byte(t)) {
					out = append(out, name)
					break
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("find the features of a pass: %w", err)
		}
	}
	return out, nil
}

// and is the tag expression that selects what both a and b select; either
// may be empty (everything).
func and(a, b string) string {
	if strings.TrimSpace(a) == "" {
		return b
	}
	return a + " && " + b
}

// packPaths returns where a pack's features are in fsys: the files its
// glob names, or its folder. A pack with no features is an error, never an
// empty run.
func packPaths(fsys fs.FS, pack *Pack) ([]string, error) {
	var paths []string
	if names, err := fs.Glob(fsys, pack.Features); err != nil {
		return nil, fmt.Errorf("find the features of pack %s: %w", pack.Name, err)
	} else if len(names) == 1 && isDir(fsys, names[0]) {
		if inside, err := fs.Glob(fsys, names[0]+"/*.feature"); err == nil && len(inside) > 0 {
			paths = names
		}
	} else {
		paths = names
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("pack %s has no features", pack.Name)
	}
	return paths, nil
}

// isDir is whether name is a folder of fsys.
func isDir(fsys fs.FS, name string) bool {
	info, err := fs.Stat(fsys, name)
	return err == nil && info.IsDir()
}

// loadPack returns the named pack and its requirements.
func loadPack(name string) (*Pack, *spec.Spec, error) {
	pack, err := LookupPack(name)
	if err != nil {
		return nil, nil, err
	}
	sp, err := spec.LoadPack(pack.Name)
	if err != nil {
		return nil, nil, err
	}
	return pack, sp, nil
}

// CheckSelection checks the pack, the tag expression and the selection by
// section before anything is sent: each is the user's mistake, to be told as
// such, never after the target has been asked and perhaps blamed.
func CheckSelection(pack, tags string, sections []string) error {
	_, sp, err := loadPack(pack)
	if err != nil {
		return err
	}
	_, err = Selection(sp, tags, sections)
	return err
}

// Selection combines a tag expression with a selection by source section into
// one godog tag expression (an AND of OR-groups). A section that no
// requirement comes from is a usage error.
func Selection(sp *spec.Spec, tags string, sections []string) (string, error) {
	if err := checkTags(tags); err != nil {
		return "", err
	}
	if len(sections) == 0 {
		return tags, nil
	}
	var ids []string
	for _, want := range sections {
		found := false
		for _, r := range sp.Requirements {
			if r.Level == spec.Reference {
				continue
			}
			for _, s := range r.Sections() {
				if s == want || strings.HasPrefix(s, want+".") {
					ids = append(ids, "@"+r.ID)
					found = true
					break
				}
			}
		}
		if !found {
			return "", fmt.Errorf("no requirement of pack %s comes from section %q", sp.Pack, want)
		}
	}
	sort.Strings(ids)
	group := strings.Join(ids, ",")
	if strings.TrimSpace(tags) == "" {
		return group, nil
	}
	return tags + " && " + group, nil
}

// Listing is a scenario as `conform list` shows it.
type Listing struct {
	// Pack is the specification pack the scenario belongs to.
	Pack string
	ID   string
	// StableID is the ID a reworded title leaves alone (stableID).
	StableID string
	// File and Line are where the scenario (an outline's row) is.
	File         string
	Line         int
	Tags         []string
	Requirements []string
	Capabilities []string
}

// List returns the selected scenarios of a pack ("" for the default) without
// running any.
func List(pack, tags string, sections []string) ([]Listing, error) {
	p, err := LookupPack(pack)
	if err != nil {
		return nil, err
	}
	return listSelected(features.FS, p, tags, sections)
}

// listSelected lists the scenarios of p's features in fsys that the tag
// expression and the sections select: the server half's (List) and the
// client half's (ListClient) alike.
func listSelected(fsys fs.FS, p *Pack, tags string, sections []string) ([]Listing, error) {
	sp, err := spec.LoadPack(p.Name)
	if err != nil {
		return nil, err
	}
	expr, err := Selection(sp, tags, sections)
	if err != nil {
		return nil, err
	}
	return listIn(fsys, p, sp, expr)
}

// FindScenario returns the scenario of a pack whose ID or stable ID is id,
// which the tag expression and sections must select too: a selection that
// leaves it out contradicts it, which is the user's mistake.
func FindScenario(pack, id, tags string, sections []string) (Listing, error) {
	p, sp, err := loadPack(pack)
	if err != nil {
		return Listing{}, err
	}
	one, err := findIn(features.FS, p, sp, id)
	if err != nil {
		return Listing{}, err
	}
	expr, err := Selection(sp, tags, sections)
	if err != nil {
		return Listing{}, err
	}
	selected, err := listIn(features.FS, p, sp, expr)
	if err != nil {
		return Listing{}, err
	}
	for _, l := range selected {
		if l.ID == one.ID {
			return one, nil
		}
	}
	return Listing{}, fmt.Errorf("the scenario %q is not among those --tags and the sections select: drop them, or name one they select", one.ID)
}

func findIn(fsys fs.FS, pack *Pack, sp *spec.Spec, id string) (Listing, error) {
	all, err := listIn(fsys, pack, sp, "")
	if err != nil {
		return Listing{}, err
	}
	for _, l := range all {
		if l.ID == id || l.StableID == id {
			return l, nil
		}
	}
	return Listing{}, fmt.Errorf("no scenario of pack %s has the ID %q: conform list --spec %s prints them", sp.Pack, id, sp.Pack)
}

// listIn lists the scenarios of a pack in fsys that expr selects.
func listIn(fsys fs.FS, pack *Pack, sp *spec.Spec, expr string) ([]Listing, error) {
	paths, err := packPaths(fsys, pack)
	if err != nil {
		return nil, err
	}
	feats, err := godog.TestSuite{Options: &godog.Options{FS: fsys, Paths: paths, Tags: expr}}.RetrieveFeatures()
	if err != nil {
		return nil, fmt.Errorf("read features: %w", err)
	}
	col := &collector{nodes: map[string]node{}, names: map[string]string{}}
	var out []Listing
	for _, f := range feats {
		col.Feature(f.GherkinDocument, f.Uri, nil)
		for _, p := range f.Pickles {
			l := Listing{Pack: sp.Pack, ID: p.Uri + ": " + p.Name, File: p.Uri}
			var row string
			if n := len(p.AstNodeIds); n > 0 {
				l.Line = col.nodes[p.AstNodeIds[n-1]].line
				row = col.nodes[p.AstNodeIds[n-1]].row
			}
			for _, t := range p.Tags {
				l.Tags = append(l.Tags, t.Name)
				id := strings.TrimPrefix(t.Name, "@")
				if _, ok := sp.Get(id); ok {
					l.Requirements = append(l.Requirements, id)
				}
				if c, ok := strings.CutPrefix(t.Name, "@needs-"); ok {
					l.Capabilities = append(l.Capabilities, c)
				}
			}
			l.StableID = stableID(sp, l.Tags, row)
			out = append(out, l)
		}
	}
	return out, nil
}
