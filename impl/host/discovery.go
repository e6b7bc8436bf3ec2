package host

import (
	"encoding/json"
	"net/http"

	"github.com/conform-mcp/conform/impl/baseurl"
)

// discovery serves /.well-known/mcp.json, the document source 7.5 step 1
// uses to check that a host is reachable and of this kind. Its fields are
// the reference host's choice (PRODUCT 6).
type discovery struct {
	name, description string
	resolver          baseurl.Resolver
	// anonymous are the tools callable without a credential; authenticated
	// the ones that need one.
	anonymous, authenticated []string
}

type discoveryDoc struct {
	Name           string         `json:"name"`
	Description    string         `json:"description"`
	URL            string         `json:"url"`
	Transport      string         `json:"transport"`
	Authentication authentication `json:"authentication"`
	Tools          toolNames      `json:"tools"`
}

type authentication struct {
	// Required is false: anonymous callers may use the allowlist (source 5.3).
	Required         bool     `json:"required"`
	Schemes          []string `json:"schemes"`
	ResourceMetadata string   `json:"resource_metadata"`
}

type toolNames struct {
	Anonymous     []string `json:"anonymous"`
	Authenticated []string `json:"authenticated"`
}

func (d discovery) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	base := d.resolver.Of(r)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(discoveryDoc{
		Name:        d.name,
		Description: d.description,
		URL:         base + "/mcp",
		Transport:   "streamable-http",
		Authentication: authentication{
			Schemes:          []string{"bearer"},
			ResourceMetadata: base + "/.well-known/oauth-protected-resource",
		},
		Tools: toolNames{Anonymous: d.anonymous, Authenticated: d.authenticated},
	})
}
