package runner

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/cucumber/godog"

	"github.com/conform-mcp/conform/harness/credentials"
	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/steps"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/spec"
)

// Pack is one specification pack as conform runs it: a value, so that adding
// a pack is adding one to Packs. Its requirements are spec's pack of the same
// name; everything else a run needs of it is here.
type Pack struct {
	// Name is the pack's name on the command line and in every report.
	Name string
	// Role is the side of the conversation the pack judges.
	Role spec.Role
	// Features is where the pack's features are among the embedded ones:
	// a glob of files, or a folder.
	Features string
	// Preflight is what a target must answer before any scenario runs.
	Preflight Preflight
	// Fit makes the profile's target what the pack takes: a base URL (the
	// source document's {base}) or an MCP endpoint at any path.
	Fit func(*profile.Profile)
	// CredentialRequest is the request a supplied credential must be
	// served on before any scenario presents it.
	CredentialRequest func(t *target.Target) profile.Request
	// Prepare completes, for an external target, the credentials and tokens
	// the scenarios present when the user supplied none, saying on log what
	// it obtained and what it could not.
	Prepare func(ctx context.Context, t *target.Target, log io.Writer)
	// Vocabulary is the pack's steps over a run's shared suite.
	Vocabulary func(*steps.Suite) func(*godog.ScenarioContext)
}

// Preflight is a pack's check of a target before any scenario: a target
// that fails it is the wrong target, said once, rather than a departure per
// scenario.
type Preflight struct {
	// Demand says in one sentence what the target must answer, for the
	// reports of a run the pre-flight stopped.
	Demand string
	// Check sends what the demand needs, and returns why the target fails
	// it: a *NotToolHostError, a *UsageError, or an error saying it is
	// unreachable.
	Check func(ctx context.Context, t *target.Target) error
}

// packs are the packs conform runs, the default first.
var packs = []*Pack{
	{
		Name:     spec.Source,
		Role:     spec.ServerSide,
		Features: "*.feature",
		Preflight: Preflight{
			Demand: "an anonymous tools/list answering HTTP 200 with a JSON-RPC result (source 7.5, step 1), and every credential supplied accepted by the instance that issued it",
			Check:  CheckHost,
		},
		Fit: func(*profile.Profile) {},
		// Source 5.3: an authenticated tools/list is what any credential may do.
		CredentialRequest: func(*target.Target) profile.Request { return profile.Request{Method: "tools/list"} },
		Prepare:           credentials.Device,
		Vocabulary:        steps.Source,
	},
	{
		Name:     spec.Authorization,
		Role:     spec.ServerSide,
		Features: spec.Authorization,
		Preflight: Preflight{
			Demand: "an anonymous request to the MCP endpoint answered as an MCP server answers (a JSON-RPC message, or a Bearer challenge), and every credential supplied accepted by the server",
			Check:  checkMCPServer,
		},
		Fit: fitEndpoint,
		// The request that needs authorization, which the pre-flight names
		// when the profile does not.
		CredentialRequest: func(t *target.Target) profile.Request { return t.Profile.MCPAuthorization.ProtectedRequest },
		Prepare:           credentials.Authorization,
		Vocabulary:        steps.Authorization,
	},
}

// Packs returns every pack, the default first.
func Packs() []*Pack { return packs }

// LookupPack returns the pack named name ("" is the default). An unknown
// name is a usage error that lists the packs there are.
func LookupPack(name string) (*Pack, error) {
	if name == "" {
		name = spec.Source
	}
	var names []string
	for _, p := range packs {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return nil, fmt.Errorf("no specification pack %q (packs: %s)", name, strings.Join(names, ", "))
}

// fitEndpoint makes the target the MCP endpoint as given, at any path, and
// leaves out the peer: this pack judges one server, and a source profile's
// peer is none of its business (nor its credential, which the pre-flight
// would otherwise try).
func fitEndpoint(p *profile.Profile) {
	p.EndpointFromTarget()
	p.Peer = nil
}
