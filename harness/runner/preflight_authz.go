package runner

import (
	"context"
	"fmt"

	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/spec"
)

// CheckHostFor is the first half of the pre-flight for a pack. The source
// pack's (CheckHost) holds the target to the source document's idea of a
// tool host, whose anonymous tools/list answers 200; the mcp-authorization
// pack is for any MCP server, most of which answer an anonymous request 401,
// so for it the pre-flight asks only that the MCP endpoint answers at all,
// and leaves every status to the scenarios.
func CheckHostFor(ctx context.Context, t *target.Target, pack string) error {
	if pack != spec.Authorization {
		return CheckHost(ctx, t)
	}
	if _, err := probe(ctx, t.HTTP, t.Profile.Target, ""); err != nil {
		return fmt.Errorf("target %s is unreachable: %v (check the URL of the MCP endpoint)", t.Profile.Target, err)
	}
	return nil
}
