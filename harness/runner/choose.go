package runner

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/spec"
)

// Choice is the pack ChoosePack picked, and why, for the command line to
// say once.
type Choice struct {
	Pack string
	// Why says what the target answered that decided it; "" when the
	// profile decided.
	Why string
}

// sourceKeys are the profile keys only the source pack reads: a profile
// that sets one was written for it.
var sourceKeys = []string{"peer", "paths", "tools", "content_collections", "oauth", "registration_limit", "slow"}

// ChoosePack names the pack that fits a target when the user named none,
// within a few requests: the profile's own keys decide first (an
// mcp_authorization block is that pack's, keys such as paths and tools the
// source pack's); otherwise what the target answers does. A host of the
// source document's kind (source 1: discovery at
// {base}/.well-known/mcp.json, path tools such as afs_list and afs_stat) gets
// the source pack, whatever else it answers, so that one breaking the rules
// still fails it; an MCP server that challenges an anonymous tools/list
// with Bearer is judged for its MCP authorization; any other MCP server is
// a usage error naming both packs, since neither fits it unasked. A target
// that answers as no MCP server at all gets the source pack, whose
// pre-flight says so.
func ChoosePack(ctx context.Context, p profile.Profile, hc *http.Client) (Choice, error) {
	if p.Keys["mcp_authorization"] {
		return Choice{Pack: spec.Authorization}, nil
	}
	for _, k := range sourceKeys {
		if p.Keys[k] {
			return Choice{Pack: spec.Source}, nil
		}
	}
	bound := hc.Timeout
	if bound <= 0 {
		bound = target.DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	base := p.Target
	discovery, derr := oauthclient.New(base, oauthclient.Endpoints{}, hc).Get(ctx, mcpclient.DiscoveryPath)
	if derr == nil && discovery.Status == http.StatusOK {
		return Choice{Pack: spec.Source}, nil
	}
	endpoint := p.RawTarget
	if endpoint == "" {
		endpoint = base + "/mcp"
	}
	r, err := mcpclient.New(endpoint, hc).Pin(p.MCPRevision).Call(ctx, "", "tools/list", map[string]any{})
	switch {
	case err != nil:
		return Choice{Pack: spec.Source}, nil
	case answered(r):
		names, _ := r.ToolNames()
		for _, tool := range []string{p.Tools.List, p.Tools.Stat} {
			if slices.Contains(names, tool) {
				return Choice{Pack: spec.Source}, nil
			}
		}
		return Choice{}, &UsageError{msg: fmt.Sprintf(
			"%s answers as an MCP server, but not as a tool host of the source document's kind: its anonymous tools/list names neither %s nor %s, and %s/.well-known/mcp.json answers %s.\n"+
				"Name the pack: --spec mcp-authorization judges its MCP authorization (the URL is the MCP endpoint, at any path); --spec source holds it to the source document anyway (with a profile naming its tools).",
			endpoint, p.Tools.List, p.Tools.Stat, base, documentAnswer(discovery, derr))}
	case answersAsMCP(r) && r.Message == nil:
		return Choice{Pack: spec.Authorization, Why: fmt.Sprintf(
			"%s answers an anonymous tools/list %s with a Bearer challenge, and %s/.well-known/mcp.json answers %s: judging its MCP authorization (--spec mcp-authorization; --spec source holds it to the source document instead)",
			endpoint, describe(r.Status, nil, "", nil), base, documentAnswer(discovery, derr))}, nil
	}
	return Choice{Pack: spec.Source}, nil
}

// documentAnswer says what a discovery document's request got.
func documentAnswer(r *oauthclient.Reply, err error) string {
	if err != nil {
		return "nothing (" + err.Error() + ")"
	}
	return describe(r.Status, nil, "", nil)
}
