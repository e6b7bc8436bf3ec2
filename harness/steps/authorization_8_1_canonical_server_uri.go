package steps

import (
	"context"
	"net/url"
	"strings"

	"github.com/conform-mcp/conform/harness/oauthclient"
)

// upperResource is the MCP endpoint's URL with its scheme and host in
// uppercase, the path as it is: "implementations SHOULD accept uppercase
// scheme and host components" (authorization 8.1).
func upperResource(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return endpoint
	}
	upper := strings.ToUpper(u.Scheme) + "://" + strings.ToUpper(u.Host) + u.EscapedPath()
	if u.RawQuery != "" {
		upper += "?" + u.RawQuery
	}
	return upper
}

// withUpperResource sends the valid authorization request naming
// upperResource as its resource.
func (st *authzState) withUpperResource(ctx context.Context) error {
	return st.sendAuthorization(ctx, func(r *oauthclient.AuthorizationRequest) { r.Resource = upperResource(r.Resource) })
}
