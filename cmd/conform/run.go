package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/conform-mcp/conform/harness/credentials"
	"github.com/conform-mcp/conform/harness/inprocess"
	"github.com/conform-mcp/conform/harness/login"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/registrations"
	"github.com/conform-mcp/conform/harness/report"
	"github.com/conform-mcp/conform/harness/runner"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/spec"
)

type runFlags struct {
	target, profile, tags, format, expected, pack, scenario, stateDir, client string
	strict                                                                    bool
	concurrency                                                               int
	connection                                                                connectionFlags
}

func runCommand(stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [SECTION...]",
		Short: "Run the scenarios against a target (the embedded reference host when none is given)",
		Long: `Run the scenarios of a specification pack against a target and report each
departure from it.

With neither --target nor --profile, the reference host is started in-process
(two instances, with a clock the suite controls) and everything runs against it.
--spec picks the pack: the source document, or mcp-authorization, the MCP
specification's authorization rules for any MCP server. Without --spec, the
profile's keys or the target's answers pick it, said once on stderr (the source
pack for the embedded host). SECTION selects scenarios by section within the
pack: "7.3", or "7" for all of 7.x; "authorization.9", or "discovery" in
mcp-authorization.

Before the scenarios, the target must answer as the pack's kind of server (the
source pack: an anonymous tools/list answering 200 with a JSON-RPC result,
source 7.5 step 1), and each credential supplied must be served by the instance
that issued it.

With --client, or a profile whose client: block is all it holds, conform judges
an MCP client instead: for each scenario of the pack's client half it plays a
scripted MCP server (and its authorization server on another origin), runs the
command through sh with {url}, {state_dir}, {tool} and {args} filled in, stands
in for the person at the browser (through $BROWSER and any authorization URL the
client prints), and judges every request the client sent.

Exit codes: 0 every selected scenario ran, and no failure counts against the
host (a SHOULD's failure counts only with --strict); 1 at least one failed, or
the target is not of the pack's kind; 2 usage or profile error, or a supplied
credential not served; 3 none failed but some could not run.`,
		RunE: func(cmd *cobra.Command, sections []string) error {
			f.stateDir = stateDir(cmd)
			return runSuite(cmd.Context(), f, sections, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.target, "target", "", "what to judge: for the source pack the host's base URL ({target}/mcp is its MCP endpoint; a final /mcp is removed), for mcp-authorization the MCP endpoint's own URL, at any path")
	fl.StringVar(&f.profile, "profile", "", "target profile (YAML); --target overrides its target")
	fl.StringVar(&f.pack, "spec", "", "specification pack: "+strings.Join(spec.Packs(), ", ")+" (default: the one the target answers as; "+spec.Source+" for the embedded host)")
	fl.StringVar(&f.tags, "tags", "", `tag expression, e.g. "@T401-1,@T401-2 && ~@needs-peer"`)
	fl.StringVar(&f.format, "format", "pretty", "report formats, comma-separated: pretty, progress, junit:FILE, cucumber:FILE, html:FILE, json:FILE")
	fl.BoolVar(&f.strict, "strict", false, "let SHOULD-level failures fail the run too")
	fl.IntVar(&f.concurrency, "concurrency", runner.DefaultConcurrency, "how many scenarios run at once (those that move the host's clock, read back a shared file or must come last run alone); the verdicts and the report are the same whatever it is")
	fl.StringVar(&f.expected, "expected-failures", "", "file of scenario IDs or stable IDs (as conform list prints them) that may fail without failing the run")
	fl.StringVar(&f.client, clientFlag, "", "judge an MCP client instead of a server: run the client half of the pack against this command, run through sh for each scenario with {url} (the MCP endpoint of the server conform plays), {state_dir}, {tool} and {args} filled in")
	fl.StringVar(&f.scenario, "scenario", "", "run this one scenario alone, named by its ID or stable ID (as conform list prints them)")
	f.connection.bind(fl)
	completeRun(cmd)
	return cmd
}

func runSuite(ctx context.Context, f runFlags, sections []string, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()

	outputs, err := report.Parse(f.format, stdout, colorful(stdout))
	if err != nil {
		return usage("%v", err)
	}
	if err := checkReportPaths(outputs); err != nil {
		return usage("%v", err)
	}
	forTerminal(outputs, f)
	expected, err := readExpected(f.expected)
	if err != nil {
		return usage("%v", err)
	}
	if f.concurrency < 1 {
		return usage("--concurrency %d: at least 1 (1 runs one scenario at a time)", f.concurrency)
	}
	if f.pack != "" {
		if _, err := runner.LookupPack(f.pack); err != nil {
			return usage("%v", err)
		}
	}
	client, err := clientProfile(f)
	if err != nil {
		return err
	}
	if client != nil {
		return runClientHalf(ctx, f, client, sections, outputs, expected, stdout, stderr)
	}
	connection, err := f.connection.parse(stderr)
	if err != nil {
		return usage("%v", err)
	}
	p, external, err := loadProfile(f)
	if err != nil {
		return err
	}
	pack, err := choosePack(ctx, f.pack, p, external, connection, stderr)
	if err != nil {
		return err
	}
	if err := runner.CheckSelection(pack.Name, f.tags, sections); err != nil {
		return usage("%v", err)
	}
	if f.scenario != "" {
		if _, err := runner.FindScenario(pack.Name, f.scenario, f.tags, sections); err != nil {
			return usage("--scenario: %v", err)
		}
	}
	t, closeTarget, err := chooseTarget(ctx, p, external, pack, f.stateDir, stderr)
	if err != nil {
		return err
	}
	defer closeTarget()
	if !t.InProcess {
		t.Connect(connection)
	}

	// The pre-flight: first whether the target is what the pack judges, so
	// that no sign-in is tried against something that is not; then the
	// credentials, once the pack has tried every source of them. A stop
	// still writes the report files, saying why.
	started := time.Now()
	stopped := func(err error) error {
		code := outcome.ExitFailed
		var ue *runner.UsageError
		if errors.As(err, &ue) {
			code = outcome.ExitUsage
		}
		if werr := writeStopped(outputs, stdout, t, pack, started, err, code == outcome.ExitUsage); werr != nil {
			fmt.Fprintln(stderr, "conform:", werr)
		}
		return &exitError{code: code, err: err}
	}
	if err := pack.Preflight.Check(ctx, t); err != nil {
		return stopped(err)
	}
	if !t.InProcess {
		pack.Prepare(ctx, t, stderr)
	}
	if err := runner.CheckCredentials(ctx, t, pack.CredentialRequest(t)); err != nil {
		return stopped(err)
	}
	run, err := runner.Run(ctx, runner.Options{
		Target:      t,
		Pack:        pack.Name,
		Tags:        f.tags,
		Sections:    sections,
		Scenario:    f.scenario,
		Strict:      f.strict,
		Concurrency: f.concurrency,
		Expected:    expected,
		Observer:    observer{live: report.LiveAll(outputs), stderr: stderr, hasLive: hasLive(outputs)},
	})
	if err != nil {
		return usage("%v", err)
	}
	return finishRun(run, outputs, expected, stdout, stderr)
}

// loadProfile reads what to run against: a profile, or a bare URL with the
// default profile; external is false when neither is given (the in-process
// reference host).
func loadProfile(f runFlags) (p profile.Profile, external bool, err error) {
	switch {
	case f.profile != "":
		p, err = profile.Load(f.profile)
		if err != nil {
			return p, false, usage("%v", err)
		}
		if f.target != "" {
			p.SetTarget("--target", f.target)
		}
	case f.target != "":
		p = profile.Default("")
		p.SetTarget("--target", f.target)
	default:
		return p, false, nil
	}
	return p, true, nil
}

// choosePack is the pack --spec names; without it, the source pack for the
// in-process host, and for an external target the one its profile or its
// answers fit (runner.ChoosePack), said once on stderr.
func choosePack(ctx context.Context, name string, p profile.Profile, external bool, c target.Connection, stderr io.Writer) (*runner.Pack, error) {
	if name == "" && external {
		if err := p.Validate(); err != nil {
			return nil, usage("%v", err)
		}
		choice, err := runner.ChoosePack(ctx, p, c.Client(p.Target, p.RawTarget))
		if err != nil {
			return nil, &exitError{code: outcome.ExitUsage, err: err}
		}
		if choice.Why != "" {
			fmt.Fprintln(stderr, "conform:", choice.Why)
		}
		name = choice.Pack
	}
	pack, err := runner.LookupPack(name)
	if err != nil {
		return nil, usage("%v", err)
	}
	return pack, nil
}

// chooseTarget builds what to run against from the profile, fitted to the
// pack, or starts the in-process reference host.
func chooseTarget(ctx context.Context, p profile.Profile, external bool, pack *runner.Pack, stateDir string, stderr io.Writer) (*target.Target, func(), error) {
	if !external {
		t, closeFn, err := inprocess.Start(ctx)
		if err != nil {
			return nil, nil, &exitError{code: outcome.ExitFailed, err: fmt.Errorf("start the in-process reference host: %w", err)}
		}
		return t, closeFn, nil
	}
	pack.Fit(&p)
	if err := p.Validate(); err != nil {
		return nil, nil, usage("%v", err)
	}
	for _, note := range p.Notes {
		fmt.Fprintln(stderr, "conform:", note)
	}
	credentials.WarnEmpty(p, stderr)
	t := target.FromProfile(p)
	t.StateDir = stateDir
	// Source 7.3: a client registers once and keeps its client_id; the
	// clients of earlier runs spare the host's registration allowance.
	if dir, err := login.Dir(stateDir); err != nil {
		fmt.Fprintf(stderr, "conform: %v; the clients this run registers are not kept\n", err)
	} else {
		t.Clients = registrations.Open(dir, stderr)
	}
	return t, func() {}, nil
}

// readExpected reads an expected-failures file: one scenario ID per line,
// blank lines and lines starting with # ignored.
func readExpected(path string) (map[string]bool, error) {
	if path == "" {
		return nil, nil
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("expected failures: %w", err)
	}
	defer file.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			out[line] = true
		}
	}
	return out, sc.Err()
}

func ranScenario(run outcome.Run, id string) bool {
	for _, r := range run.Results {
		if r.ID == id || r.StableID == id {
			return true
		}
	}
	return false
}

// colorful is true when w is a terminal and NO_COLOR is unset (no-color.org).
func colorful(w io.Writer) bool {
	file, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" {
		return false
	}
	info, err := file.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

func hasLive(outputs []report.Output) bool {
	for _, o := range outputs {
		if _, ok := o.Writer.(report.Live); ok {
			return true
		}
	}
	return false
}

// observer forwards live events to the live reports, and says on stderr what
// a long wait is for when no live report would.
type observer struct {
	live    report.Live
	stderr  io.Writer
	hasLive bool
}

func (o observer) ScenarioStarted(r outcome.Result)  { o.live.ScenarioStarted(r) }
func (o observer) ScenarioFinished(r outcome.Result) { o.live.ScenarioFinished(r) }
func (o observer) Waiting(what string, d time.Duration) {
	if o.hasLive {
		o.live.Waiting(what, d)
		return
	}
	fmt.Fprintf(o.stderr, "conform: %s for %s (until about %s)\n", what, d, time.Now().Add(d).Format("15:04:05"))
}
