// Package clientsteps is the step vocabulary of the client half of a pack:
// conform plays a scripted MCP server and authorization server (package
// scripted), runs the user's client as a command (package clientrun), and
// judges the requests the client sent. A Given selects how the scripted
// server behaves, "the client is run" runs the command, and each Then judges
// the recorded requests. Steps blame the client only through
// outcome.Departure, and say a scenario cannot run through steps.Notes, as
// the server half's steps do, so that the same collector reports both.
package clientsteps

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"

	"github.com/conform-mcp/conform/harness/clientrun"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/scripted"
	"github.com/conform-mcp/conform/harness/steps"
	"github.com/conform-mcp/conform/harness/wire"
)

// Config is how the user's client is run: the profile's client: block, or
// conform run --client.
type Config struct {
	// Pack names the pack whose client half runs (spec.Source or
	// spec.Authorization): it decides which scripted server plays.
	Pack string
	// Command runs the client through sh, with the placeholders {url},
	// {state_dir}, {tool} and {args} (clientrun.Expand).
	Command string
	// Second, when set, is a command for the scenarios that need the
	// client to call a tool, when Command names no {tool}.
	Second string
	// Env is added to the client's environment (KEY=VALUE).
	Env []string
	// Timeout bounds one run of the client; a minute when 0.
	Timeout time.Duration
	// StateDir is {state_dir}, a directory that lasts for the whole run;
	// required (the caller makes it, and removes it after the run).
	StateDir string
	// Preregistered is a client the user registered beforehand, which
	// every scripted authorization server of the mcp-authorization pack
	// knows (but one the scenario moves to, which the client has never
	// met); the zero value has the client register itself.
	Preregistered scripted.Preregistered
	// MetadataURL is the client ID metadata document the user says the
	// client names itself by (profile client.client_metadata_url); ""
	// when none. With Preregistered it tells which ways of naming itself
	// the client has, which Client Registration's priority order judges.
	MetadataURL string
	// Documents fetches client ID metadata documents, for the scripted
	// authorization servers and the judgements alike; nil for
	// http.DefaultClient.
	Documents *http.Client
	// Log, when set, receives every request the client sends a scripted
	// server, with its answer, and every run of the client, masked as
	// reports mask them, as each completes: the server half's -v
	// (target.Config.Log) for the client half.
	Log io.Writer
}

// suite is what every scenario of one run shares.
type suite struct {
	cfg   Config
	notes *steps.Notes
	// control is the control's verdict once run: "" when the client
	// completed the flow against a compliant server.
	control     *string
	controlOnce sync.Once
	// controlDocument is the URL-formatted client_id the client named
	// itself by in the control, "" when none.
	controlDocument string
	// logMu keeps the exchanges written to cfg.Log whole: a client may
	// send requests at once.
	logMu sync.Mutex
}

// newLog is a log of a scenario's requests, each written to cfg.Log.
func (s *suite) newLog() *scripted.Log {
	return &scripted.Log{Watch: func(r scripted.Request) { s.trace(exchange(r)) }}
}

// trace writes ex to cfg.Log, when set, as the server half writes its own
// (target.Config.Log).
func (s *suite) trace(ex wire.Exchange) {
	if s.cfg.Log == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.cfg.Log, "%s\n\n", ex.String())
}

// scenario is one scenario's state.
type scenario struct {
	*suite
	pickleID string
	log      *scripted.Log
	// servers are the scenario's scripted servers, the first first;
	// variant is how the first behaves.
	servers []*scripted.Server
	variant scripted.Variant
	// runs are the client's runs in this scenario, in order.
	runs []*run
	// toolCall is set when the scenario asked the client to call a tool;
	// errorResult when the call's result is to be isError true.
	toolCall, errorResult bool
}

// run is one run of the client, against one scripted server.
type run struct {
	server *scripted.Server
	res    *clientrun.Result
	// first is the Seq of the first request after the run began.
	first int
}

// Initializer returns godog's scenario initializer for the client half:
// a fresh state for each scenario, its servers closed at its end, and every
// step of the vocabulary. notes is the collector's, as for the server half.
// Call it once per run and give the same initializer to every pass of the
// run: the control, run once, is shared through it.
func Initializer(cfg Config, notes *steps.Notes) func(*godog.ScenarioContext) {
	s := &suite{cfg: cfg, notes: notes}
	return func(sc *godog.ScenarioContext) {
		st := &scenario{suite: s, log: s.newLog()}
		sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
			st.pickleID = p.Id
			if cfg.StateDir == "" {
				return ctx, fmt.Errorf("the client half needs a state directory that lasts for the run (Config.StateDir)")
			}
			return ctx, nil
		})
		sc.After(func(ctx context.Context, _ *godog.Scenario, _ error) (context.Context, error) {
			for _, srv := range st.servers {
				srv.Close()
			}
			return ctx, nil
		})
		st.register(sc)
	}
}

func (st *scenario) register(sc *godog.ScenarioContext) {
	sc.Step(`^a scripted server that (.+)$`, st.scriptedServer)
	sc.Step(`^the client has completed the flow against a compliant server in this run$`, st.controlPassed)
	sc.Step(`^the client is asked to call a tool$`, func() error { return st.askTool(false) })
	sc.Step(`^the client is asked to call a tool whose result is an error$`, func() error { return st.askTool(true) })
	sc.Step(`^the client is run$`, func(ctx context.Context) error { return st.runFirst(ctx, true) })
	sc.Step(`^the client is run again$`, func(ctx context.Context) error { return st.runFirst(ctx, false) })
	sc.Step(`^the client is run again against another scripted server$`, st.runAgainstAnother)
	sc.Step(`^the scripted server revokes every credential it issued$`, st.revoke)
	sc.Step(`^the scripted server moves to another authorization server$`, st.move)
	st.registerJudgements(sc)
}

// skip stops the scenario as not run, saying why. It returns the
// outcome.Skip itself, which the collector classifies as not run with its
// reason: steps.Notes keeps the skip reasons of the server half's steps
// only, through a method of that package's own.
func (st *scenario) skip(reason string) error {
	return &outcome.Skip{Reason: reason}
}

// unseen stops the scenario as not run because the client never did what
// it would be judged on: why, and how its last run ended.
func (st *scenario) unseen(why string) error {
	return st.skip(why + "; " + describe(st.last().res))
}

// sent are the recorded requests keep selects, or a not-run error saying
// none when the client sent none.
func (st *scenario) sent(keep func(scripted.Request) bool, none string) ([]scripted.Request, error) {
	got := filter(st.log.Requests(), keep)
	if len(got) == 0 {
		return nil, st.unseen(none)
	}
	return got, nil
}

// phrases are the Given texts of each pack's scripted server variants.
var phrases = map[string]map[string]scripted.Variant{
	"mcp-authorization": {
		"behaves as the specification says":                                               scripted.Compliant,
		"names its protected resource metadata only in its challenge":                     scripted.MetadataOnlyInChallenge,
		"names no resource_metadata in its challenge":                                     scripted.ChallengeWithoutMetadata,
		"serves authorization server metadata naming another issuer":                      scripted.IssuerMismatch,
		"serves authorization server metadata without code_challenge_methods_supported":   scripted.NoPKCEAdvertised,
		"answers the authorization request with another issuer's iss":                     scripted.IssWrong,
		"advertises iss but leaves it out of the authorization response":                  scripted.IssMissing,
		"answers the authorization request with its issuer's iss and a trailing slash":    scripted.IssSlashed,
		"challenges for a scope its metadata does not list":                               scripted.ChallengeScope,
		"grants only the scope asked for and needs more to call a tool":                   scripted.StepUp,
		"grants only the scope asked for and names in its 403 only the scope it lacks":    scripted.StepUpMissingOnly,
		"answers the authorization request with a state other than the one sent":          scripted.StateWrong,
		"speaks only MCP 2026-07-28":                                                      scripted.Modern,
		"issues refresh tokens only for offline_access, which it does not advertise":      scripted.NoRefreshToken,
		"serves protected resource metadata naming another resource":                      scripted.ResourceMismatch,
		"adds a member no specification defines to its authorization and token responses": scripted.ExtraMembers,
		"does not advertise client ID metadata documents":                                 scripted.CIMDNotAdvertised,
	},
	"source": {
		"behaves as the source document says":              scripted.Compliant,
		"refuses the first device code with invalid_grant": scripted.DeviceCodeRejected,
	},
}

// startServer starts a scripted server of the run's pack, recording into log.
func startServer(cfg Config, name string, v scripted.Variant, log *scripted.Log) (*scripted.Server, error) {
	if cfg.Pack == "source" {
		return scripted.StartSource(name, v, log)
	}
	return scripted.StartAuthz(name, v, log, scripted.AuthzOptions{Preregistered: cfg.Preregistered, Documents: cfg.Documents})
}

func (st *scenario) start(name string, v scripted.Variant) (*scripted.Server, error) {
	srv, err := startServer(st.cfg, name, v, st.log)
	if err != nil {
		return nil, err
	}
	st.servers = append(st.servers, srv)
	return srv, nil
}

func (st *scenario) scriptedServer(what string) error {
	v, ok := phrases[st.cfg.Pack][what]
	if !ok {
		return fmt.Errorf("no scripted server of pack %s %s", st.cfg.Pack, what)
	}
	st.variant = v
	_, err := st.start("first", v)
	return err
}

// errNoServer is a feature's mistake: a step about the scripted server
// before the Given that starts it.
var errNoServer = fmt.Errorf("no scripted server yet: a Given must start one first")

func (st *scenario) askTool(errorResult bool) error {
	if len(st.servers) == 0 {
		return errNoServer
	}
	if st.command(true) == "" {
		return st.skip("the scenario needs the client to call a tool, and neither client command names {tool}")
	}
	st.toolCall, st.errorResult = true, errorResult
	if errorResult && st.servers[0].ErrorArgs == "" {
		return fmt.Errorf("the scripted server has no call whose result is an error")
	}
	return nil
}

// command is the command to run: one that names {tool} when the scenario
// calls a tool ("" when there is none).
func (st *scenario) command(tool bool) string {
	if !tool {
		return st.cfg.Command
	}
	for _, c := range []string{st.cfg.Command, st.cfg.Second} {
		if clientrun.Uses(c, "tool") {
			return c
		}
	}
	return ""
}

// runFirst runs the client against the scenario's first server.
func (st *scenario) runFirst(ctx context.Context, first bool) error {
	if len(st.servers) == 0 {
		return errNoServer
	}
	return st.runClient(ctx, st.servers[0], first)
}

// runClient runs the client against srv. The first run of a scenario that
// sees no request at all from the client stops the scenario as not run.
func (st *scenario) runClient(ctx context.Context, srv *scripted.Server, first bool) error {
	r, err := st.execute(ctx, srv, st.command(st.toolCall), st.log)
	if err != nil {
		return err
	}
	st.runs = append(st.runs, r)
	st.notes.Observe(st.pickleID, fmt.Sprintf("run %d against %s: %s", len(st.runs), srv.Endpoint, describe(r.res)))
	if first && len(st.log.Requests()) == 0 {
		return st.skip("the client never engaged: it sent no request to " + srv.Endpoint + "; " + describe(r.res))
	}
	return nil
}

func (st *scenario) runAgainstAnother(ctx context.Context) error {
	srv, err := st.start("second", scripted.Compliant)
	if err != nil {
		return err
	}
	return st.runClient(ctx, srv, false)
}

// execute runs the command once against srv, recording into log.
func (st *scenario) execute(ctx context.Context, srv *scripted.Server, command string, log *scripted.Log) (*run, error) {
	v := clientrun.Values{URL: srv.Endpoint, StateDir: st.cfg.StateDir}
	if st.toolCall {
		v.Tool, v.Args = srv.Tool, srv.Args
		if st.errorResult {
			v.Args = srv.ErrorArgs
		}
	}
	authorize := srv.Authorize
	b := &clientrun.Browser{HTTP: &http.Client{Timeout: 10 * time.Second}, Allow: func(u string) bool {
		return authorize != "" && (u == authorize || strings.HasPrefix(u, authorize+"?"))
	}}
	first := len(log.Requests()) + 1
	res, err := clientrun.Run(ctx, clientrun.Command{Script: command, Env: st.cfg.Env, Timeout: st.cfg.Timeout}, v, b)
	if err != nil {
		return nil, err
	}
	st.trace(runExchange(res, st.issued()))
	return &run{server: srv, res: res, first: first}, nil
}

func (st *scenario) revoke() error {
	if len(st.servers) == 0 {
		return errNoServer
	}
	if !st.servers[0].Revoke() {
		return fmt.Errorf("the scripted server cannot revoke its credentials")
	}
	return nil
}

func (st *scenario) move() error {
	if len(st.servers) == 0 {
		return errNoServer
	}
	return st.servers[0].MoveAuthorization()
}

// describe says in a line how a run ended, for not-run reasons, with any
// credential in a URL it quotes masked.
func describe(r *clientrun.Result) string {
	return wire.MaskQuery(ended(r))
}

func ended(r *clientrun.Result) string {
	how := fmt.Sprintf("it exited with status %d", r.ExitCode)
	if c := r.Crashed(); c != "" {
		how = c
	}
	if tail := lastLine(r.Stderr); tail != "" {
		how += "; its stderr ends: " + tail
	} else if tail := lastLine(r.Stdout); tail != "" {
		how += "; its stdout ends: " + tail
	}
	return how
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
