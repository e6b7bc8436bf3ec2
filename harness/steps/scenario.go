// Package steps is the suite's step vocabulary: a few general steps that
// features compose into scenarios. Each scenario gets a fresh State; steps
// blame the host only through outcome.Departure, and say a scenario cannot run
// through Skip.
package steps

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/harness/wire"
)

// Notes carries what steps learn about a scenario to the run's collector:
// why it was not run, and what it observed of choices the source leaves open.
type Notes struct {
	mu       sync.Mutex
	skipped  map[string]string
	observed map[string][]string
	// sent is each step's text as it ran, by pickle step ID.
	sent map[string]string
}

// NewNotes returns empty notes for one run.
func NewNotes() *Notes {
	return &Notes{skipped: map[string]string{}, observed: map[string][]string{}, sent: map[string]string{}}
}

// Sent returns the text of the step with the given pickle step ID with the
// values it used in place of its placeholders, if it ran and had any.
func (n *Notes) Sent(stepID string) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	s, ok := n.sent[stepID]
	return s, ok
}

func (n *Notes) ran(stepID, text string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sent[stepID] = text
}

// Observe records something the scenario with the given pickle ID saw of
// the host that the source leaves open (which device grant name it took, how
// long a credential lived); reports show it with the result.
func (n *Notes) Observe(pickleID, what string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !slices.Contains(n.observed[pickleID], what) {
		n.observed[pickleID] = append(n.observed[pickleID], what)
	}
}

// Observed returns what the scenario with the given pickle ID observed.
func (n *Notes) Observed(pickleID string) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.observed[pickleID])
}

// SkipReason returns why the scenario with the given pickle ID was not run.
func (n *Notes) SkipReason(pickleID string) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	r, ok := n.skipped[pickleID]
	return r, ok
}

func (n *Notes) skip(pickleID, reason string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.skipped[pickleID] = reason
}

// Suite is what every scenario of a run shares.
type Suite struct {
	Target *target.Target
	Notes  *Notes
	// Only, when set, is the one scenario ID that runs: the others the
	// selection holds (the other rows of its outline) are skipped unsent.
	Only string
	// Announce tells a person about a long wait; may be nil.
	Announce func(what string, d time.Duration)
	MCP      *mcpclient.Client
	OAuth    *oauthclient.Client
	// Grant sends device access token requests by the name the host takes.
	Grant *oauthclient.DeviceGrant
	// kept is the device-grant credential obtained early in the run, used
	// again at its end (source 3: it has no expiry).
	kept keptCredential
	// clients is the client registered once per run (source 7.3).
	clients clientCache
	// authzClient is the mcp-authorization pack's client, registered once per run.
	authzClient authzClient
	// control is the authorization server's positive control, once per run.
	control flowControl
	// scope is what the run's authorization requests ask for.
	scope scopeChoice
	// lost is the first scenario in which a target that had answered
	// stopped answering.
	lost lostTarget
	// protection says once per run whether the server implements MCP
	// authorization at all.
	protection protection
	// credential is whether the target's credential was served at the
	// run's start.
	credential credentialWatch
}

// NewSuite prepares the shared clients for a target.
func NewSuite(t *target.Target, notes *Notes) *Suite {
	p := t.Profile
	oc := oauthclient.New(p.Target, p.OAuth.Endpoints(), t.HTTP)
	return &Suite{
		Target: t,
		Notes:  notes,
		MCP:    mcpclient.New(t.Endpoint(), t.HTTP).Pin(p.MCPRevision),
		OAuth:  oc,
		Grant:  oc.DeviceGrant(),
	}
}

// State is one scenario's state, created fresh for every scenario.
type State struct {
	*Suite
	pickleID string
	// auth is the Authorization header value of the current caller ("" when anonymous).
	auth string
	// reply is the last MCP reply; oauth the last OAuth reply.
	reply *mcpclient.Reply
	oauth *oauthclient.Reply
	// last is the last reply, whatever sent it (heard).
	last *heard
	// remembered replies by name, for "identical to" comparisons.
	remembered map[string]*heard
	// credentials are the callers "a caller with ..." names, each by its
	// words: every pack adds its own before the core steps are bound.
	credentials map[string]func(context.Context) error
	// vars are values learned during the scenario ({client_id}, {device_code}, ...).
	vars map[string]string
	// byAllowlist is set when the caller is anonymous because the profile's
	// tools.allowlisted let a scenario about the path policy choose one.
	byAllowlist bool
	// hidden are values learned in the scenario that every message masks
	// (hide), and moreSecrets a pack's own.
	hidden      []string
	moreSecrets func() []string
	// scenario is the scenario's name.
	scenario string
}

// lostTarget remembers that the target answered, and where it stopped.
type lostTarget struct {
	mu       sync.Mutex
	answered bool
	first    string
}

// answered notes that the target answered a request.
func (st *State) answered() {
	st.lost.mu.Lock()
	defer st.lost.mu.Unlock()
	st.lost.answered = true
}

// stopped turns a request the target did not answer into a harness error,
// once the target has answered earlier in the run: a target that stops
// answering mid-run (crashed, stopped, unplugged) says nothing about the
// requirements of the scenarios that follow, so none of them is failed for
// it; each names the first scenario that lost it. Before any answer it is
// nil: the scenario reports the target unreachable.
func (st *State) stopped(err error) error {
	st.lost.mu.Lock()
	defer st.lost.mu.Unlock()
	if !st.lost.answered {
		return nil
	}
	if st.lost.first == "" {
		st.lost.first = st.scenario
	}
	return fmt.Errorf("%s (%v), first in the scenario %q; no scenario from there on is a verdict on the host: check that it is still running", outcome.TargetStopped, err, st.lost.first)
}

// Source is the source pack's vocabulary: godog's scenario initializer for
// a suite, with the core steps and the source document's own.
func Source(s *Suite) func(*godog.ScenarioContext) { return initializer(s, sourceSteps) }

// Authorization is the mcp-authorization pack's vocabulary: the core steps
// and the MCP authorization specification's own.
func Authorization(s *Suite) func(*godog.ScenarioContext) {
	return initializer(s, authorizationSteps)
}

// authorizationSteps binds the MCP authorization specification's own steps.
func authorizationSteps(st *State, sc stepContext) {
	(&authzState{State: st}).register(sc)
}

// initializer returns godog's scenario initializer for a suite and a pack's
// steps: a fresh State per scenario, the capability check, the pack's steps
// and the core ones.
func initializer(s *Suite, pack func(*State, stepContext)) func(*godog.ScenarioContext) {
	return func(sc *godog.ScenarioContext) {
		st := newState(s)
		sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
			if s.Only != "" && p.Uri+": "+p.Name != s.Only {
				return ctx, godog.ErrSkip
			}
			st.pickleID = p.Id
			st.scenario = p.Name
			for _, tag := range p.Tags {
				capability, ok := strings.CutPrefix(tag.Name, "@needs-")
				if !ok {
					continue
				}
				if reason := s.Target.Lacks(capability); reason != "" {
					return ctx, st.skip(reason)
				}
				if capability == target.NeedsAuthorization {
					if reason := s.protection.reason(ctx, st); reason != "" {
						return ctx, st.skip(reason)
					}
				}
			}
			return ctx, nil
		})
		sc.StepContext().After(func(ctx context.Context, step *godog.Step, status godog.StepResultStatus, _ error) (context.Context, error) {
			// A skipped step sent nothing: its placeholders stay as written.
			if status == godog.StepPassed || status == godog.StepFailed {
				if sent := st.shown(step.Text); sent != step.Text {
					st.Notes.ran(step.Id, sent)
				}
			}
			return ctx, nil
		})
		bind(st, stepContext{ScenarioContext: sc, judgements: new([]judgement)}, pack)
	}
}

// newState is a scenario's fresh state.
func newState(s *Suite) *State {
	st := &State{Suite: s, remembered: map[string]*heard{}, vars: map[string]string{}}
	st.credentials = map[string]func(context.Context) error{"the target's credential": noContext(st.withCredential)}
	return st
}

// bind binds a pack's steps, then the core ones (whose callers the pack's
// add to).
func bind(st *State, sc stepContext, pack func(*State, stepContext)) {
	pack(st, sc)
	st.registerCore(sc)
}

// skip records why the scenario cannot run and stops it without failing.
func (st *State) skip(reason string) error {
	st.Notes.skip(st.pickleID, reason)
	return fmt.Errorf("%w: %w", godog.ErrSkip, &outcome.Skip{Reason: reason})
}

var placeholder = regexp.MustCompile(`\{([a-z_]+(?:\.[a-z_]+)*)\}`)

// expand replaces {placeholders} in feature text with the profile's values
// ({base}, {paths.closed}, {tools.write}, {paths.unsupported.operation}, ...)
// and values learned in the scenario ({client_id}). An unknown placeholder is
// a harness error, never silently left in; a profile key left empty stops the
// scenario as not run, naming the key.
func (st *State) expand(text string) (string, error) {
	var missing, empty []string
	out := placeholder.ReplaceAllStringFunc(text, func(m string) string {
		key := m[1 : len(m)-1]
		if v, ok := st.lookup(key); ok {
			if v == "" && key != "base" {
				empty = append(empty, key)
			}
			return v
		}
		missing = append(missing, m)
		return m
	})
	switch {
	case len(missing) > 0:
		return "", fmt.Errorf("unknown placeholder %s in %q", strings.Join(missing, ", "), text)
	case len(empty) > 0:
		return "", st.skip("needs the profile key " + strings.Join(empty, ", ") + ", which is empty")
	}
	return out, nil
}

// shown is a step's text as a report shows it once the step has run: each
// placeholder with a value replaced by it, credentials masked. Unlike
// expand it never fails; a placeholder without a value stays as written.
func (st *State) shown(text string) string {
	out := placeholder.ReplaceAllStringFunc(text, func(m string) string {
		if v, ok := st.lookup(m[1 : len(m)-1]); ok && v != "" {
			return v
		}
		return m
	})
	return wire.MaskSecret(out, st.secrets()...)
}

func (st *State) lookup(key string) (string, bool) {
	p := st.Target.Profile
	switch key {
	case "base":
		return p.Target, true
	case "paths.open":
		return p.Paths.Open, true
	case "paths.open_dir":
		return p.Paths.OpenDir, true
	case "paths.closed":
		return p.Paths.Closed, true
	case "paths.closed_dir":
		return p.Paths.ClosedDir, true
	case "paths.missing":
		return p.Paths.Missing, true
	case "paths.writable":
		return p.Paths.Writable, true
	case "paths.unsupported.path":
		return p.Paths.Unsupported.Path, true
	case "paths.unsupported.operation":
		return p.Paths.Unsupported.Operation, true
	case "paths.closed_unsupported.path":
		return p.Paths.ClosedUnsupported.Path, true
	case "paths.closed_unsupported.operation":
		return p.Paths.ClosedUnsupported.Operation, true
	case "paths.closed.name":
		return path.Base(p.Paths.Closed), true
	case "tools.list":
		return p.Tools.List, true
	case "tools.stat":
		return p.Tools.Stat, true
	case "tools.read":
		return p.Tools.Read, true
	case "tools.write":
		return p.Tools.Write, true
	}
	v, ok := st.vars[key]
	return v, ok
}

// secrets are the credentials this scenario may show; masked in every message.
func (st *State) secrets() []string {
	out := append([]string{st.Target.Credential, st.Target.PeerCredential, authCredentials(st.auth)}, st.hidden...)
	if st.moreSecrets != nil {
		out = append(out, st.moreSecrets()...)
	}
	return out
}

// hide masks values learned in the scenario (an issued token) in every
// message from here on.
func (st *State) hide(values ...string) {
	st.hidden = append(st.hidden, values...)
}

// authCredentials is what follows the scheme in an Authorization value (RFC
// 9110 section 11.4: auth-scheme [ 1*SP ( token68 / #auth-param ) ]); a bare
// scheme such as "Bearer" carries none, and masking it would hide the word
// Bearer in every message.
func authCredentials(auth string) string {
	_, cred, _ := strings.Cut(strings.TrimSpace(auth), " ")
	return strings.TrimSpace(cred)
}

// depart builds a departure from the last exchanges, with the scenario's secrets masked.
func (st *State) depart(check string, expected, actual any, exchanges ...wire.Exchange) error {
	// An exchange without a request is none the harness saw (an answer the
	// approval command handed back): it would read "> / < HTTP 0".
	exchanges = slices.DeleteFunc(slices.Clone(exchanges), func(ex wire.Exchange) bool { return ex.Method == "" && ex.URL == "" })
	d := outcome.Departf(check, expected, actual, exchanges...)
	d.Expected = wire.MaskSecret(d.Expected, st.secrets()...)
	d.Actual = wire.MaskSecret(d.Actual, st.secrets()...)
	return d
}
