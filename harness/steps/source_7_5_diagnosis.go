package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/conform-mcp/conform/harness/diagnose"
	"github.com/conform-mcp/conform/harness/wire"
)

// diagnosis is one scenario's run of the diagnosis engine (source 7.5).
type diagnosis struct {
	st     *sourceState
	report *diagnose.Report
}

// registerDiagnose binds the steps that run the diagnosis order of source
// section 7.5 against the target and judge where it stops. The engine's
// wording is its own; these steps judge only the step and the gate, which
// the host's behaviour decides.
func (st *sourceState) registerDiagnose(sc stepContext) {
	d := &diagnosis{st: st}
	const caller = `(an anonymous caller|the target's credential|a credential issued by the peer|an unknown credential|a caller allowed to call it(?:, \S+ and \S+)?)`
	sc.Step(`^the (call of|operation) (\S+) on (\S+) is diagnosed for `+caller+`$`, func(ctx context.Context, what, tool, path, who string) error {
		if what == "operation" {
			return d.operationOn(ctx, tool, path, who)
		}
		return d.callOn(ctx, tool, path, who)
	})
	sc.Step(`^the call of a tool that tools/list does not show is diagnosed for an anonymous caller$`, d.unlisted)

	sc.Step(`^the diagnosis (passes step 1|finds the call succeeds)$`, func(which string) error {
		if which == "passes step 1" {
			return d.passesStep1()
		}
		return d.succeeds()
	})
	sc.Step(`^the diagnosis stops at step ([1-5]) naming (?:gate (1 or 2|3|4)|no gate)$`, func(step int, gate string) error {
		if gate == "" {
			return d.stopsWithoutGate(step)
		}
		return d.stopsAtGate(step, gate)
	})
	sc.Step(`^the diagnosis lists the parent of (\S+)$`, d.listsParent)
	sc.Step(`^the diagnosis shows the challenge's resource_metadata "([^"]*)"$`, d.showsChallenge)
}

// unknownCredential is a bearer token no host issued.
const unknownCredential = "conform-unknown-credential-7f3a9"

// credentialFor returns the credential of a caller role, or skips the
// scenario when the target has none. "a caller allowed to call it" (and the
// tools named after it) is anonymous when tools.allowlisted names them all.
func (d *diagnosis) credentialFor(who, tool string) (string, error) {
	t := d.st.Target
	if rest, ok := strings.CutPrefix(who, "a caller allowed to call it"); ok {
		tools := []string{tool}
		if rest = strings.TrimPrefix(rest, ", "); rest != "" {
			for _, name := range strings.Split(rest, " and ") {
				name, err := d.st.expand(name)
				if err != nil {
					return "", err
				}
				tools = append(tools, name)
			}
		}
		auth, err := d.st.authFor(tools)
		return strings.TrimPrefix(auth, "Bearer "), err
	}
	switch who {
	case "an unknown credential":
		return unknownCredential, nil
	case "the target's credential":
		if t.Credential == "" {
			return "", d.st.skip(t.Lacks("credential"))
		}
		return t.Credential, nil
	case "a credential issued by the peer":
		if t.PeerCredential == "" {
			return "", d.st.skip(t.Lacks("peer"))
		}
		return t.PeerCredential, nil
	}
	return "", nil
}

func (d *diagnosis) callOn(ctx context.Context, tool, p, who string) error {
	tool, err := d.st.expand(tool)
	if err != nil {
		return err
	}
	if p, err = d.st.expand(p); err != nil {
		return err
	}
	return d.run(ctx, tool, p, who)
}

func (d *diagnosis) operationOn(ctx context.Context, operation, p, who string) error {
	tool, err := d.st.toolFor(operation)
	if err != nil {
		return err
	}
	if p, err = d.st.expand(p); err != nil {
		return err
	}
	return d.run(ctx, tool, p, who)
}

// unlisted diagnoses a name the host's anonymous tools/list does not show.
func (d *diagnosis) unlisted(ctx context.Context) error {
	names, err := d.st.anonymousToolNames(ctx)
	if err != nil {
		return err
	}
	return d.run(ctx, unlistedName(names), d.st.Target.Profile.Paths.Open, "an anonymous caller")
}

// run diagnoses a call of tool on p with the profile's argument shape. An
// error from the engine is the harness's, never the host's.
func (d *diagnosis) run(ctx context.Context, tool, p, who string) error {
	cred, err := d.credentialFor(who, tool)
	if err != nil {
		return err
	}
	prof := d.st.Target.Profile
	rep, err := diagnose.Diagnose(ctx, diagnose.Input{
		Target:       prof.Target,
		Tool:         tool,
		Path:         p,
		Arguments:    d.st.toolArguments(tool, p),
		Credential:   cred,
		StatTool:     prof.Tools.Stat,
		ListTool:     prof.Tools.List,
		ContentTools: prof.Tools.Content,
		HTTP:         d.st.Target.HTTP,
	})
	if err != nil {
		return fmt.Errorf("diagnosis: %w", err)
	}
	d.report = &rep
	return nil
}

func (d *diagnosis) need() error {
	if d.report == nil {
		return fmt.Errorf("no diagnosis yet: the scenario must diagnose a call before judging it")
	}
	return nil
}

// depart blames the host: its behaviour led the diagnosis elsewhere. The
// whole report is the actual, with every exchange it made.
func (d *diagnosis) depart(expected string) error {
	var b bytes.Buffer
	if err := d.report.Write(&b); err != nil {
		return fmt.Errorf("render the diagnosis: %w", err)
	}
	var exs []wire.Exchange
	for _, o := range d.report.Observations {
		if o.Exchange != nil {
			exs = append(exs, *o.Exchange)
		}
	}
	return d.st.depart("diagnosis (source 7.5)", expected, strings.TrimSpace(b.String()), exs...)
}

// stoppedAt says where the diagnosis stopped, for expectations.
func stoppedAt(step int, gate string) string {
	return fmt.Sprintf("the diagnosis stops at step %d naming %s", step, gate)
}

func (d *diagnosis) passesStep1() error {
	if err := d.need(); err != nil {
		return err
	}
	if d.report.Verdict.Step == 1 {
		return d.depart("anonymous tools/list answers 200 with a list of tools, so the diagnosis goes past step 1")
	}
	return nil
}

var gates = map[string]int{"1 or 2": diagnose.GateOneOrTwo, "3": diagnose.GatePathPolicy, "4": diagnose.GateProvider}

func (d *diagnosis) stopsAtGate(step int, gate string) error {
	if err := d.need(); err != nil {
		return err
	}
	v := d.report.Verdict
	if v.Step != step || v.Gate != gates[gate] || v.Uncovered {
		return d.depart(stoppedAt(step, "gate "+gate))
	}
	return nil
}

func (d *diagnosis) stopsWithoutGate(step int) error {
	if err := d.need(); err != nil {
		return err
	}
	v := d.report.Verdict
	if v.Step != step || v.Gate != diagnose.NoGate || v.Uncovered {
		return d.depart(stoppedAt(step, "no gate"))
	}
	return nil
}

func (d *diagnosis) succeeds() error {
	if err := d.need(); err != nil {
		return err
	}
	if d.report.Verdict.Step != 0 {
		return d.depart("the call succeeds: HTTP 200 with isError false")
	}
	return nil
}

// listsParent checks source 7.4: before concluding that a provider is
// missing, the parent is listed with afs_list. It looks for that call among
// the exchanges, so the engine's wording does not matter.
func (d *diagnosis) listsParent(p string) error {
	if err := d.need(); err != nil {
		return err
	}
	p, err := d.st.expand(p)
	if err != nil {
		return err
	}
	parent := path.Dir(path.Clean(p))
	tool := d.st.Target.Profile.Tools.List
	for _, o := range d.report.Observations {
		if o.Exchange != nil && o.Step == 5 && callsOn(o.Exchange.RequestBody, tool, parent) {
			return nil
		}
	}
	return d.depart(fmt.Sprintf("at step 5, a call of %s on the parent %s", tool, parent))
}

// callsOn reports whether a request body is a tools/call of tool on p.
func callsOn(body, tool, p string) bool {
	var req struct {
		Method string `json:"method"`
		Params struct {
			Name      string `json:"name"`
			Arguments struct {
				Path string `json:"path"`
			} `json:"arguments"`
		} `json:"params"`
	}
	return json.Unmarshal([]byte(body), &req) == nil && req.Method == "tools/call" &&
		req.Params.Name == tool && req.Params.Arguments.Path == p
}

// showsChallenge checks that the diagnosis found the challenge to follow
// (source 7.5 step 3, 7.2): it fetched the resource_metadata URL the 401 named.
func (d *diagnosis) showsChallenge(want string) error {
	if err := d.need(); err != nil {
		return err
	}
	want, err := d.st.expand(want)
	if err != nil {
		return err
	}
	for _, o := range d.report.Observations {
		if o.Exchange != nil && o.Exchange.Method == "GET" && o.Exchange.URL == want {
			return nil
		}
	}
	return d.depart(fmt.Sprintf("a 401 whose Bearer challenge names resource_metadata %q, fetched by the diagnosis", want))
}
