// Package spec holds the specifications the suite checks, each restated as
// numbered requirements: the source document (requirements.yaml, the default
// pack) and the MCP specification's authorization rules
// (mcp-authorization/requirements.yaml). Features, reports and coverage
// checks name each requirement by a stable ID, unique across packs, and quote
// the same sentence. Beside each pack's requirements is the inventory of the
// normative sentences of the texts it restates (sentences.yaml, inventory.go),
// each tied to the requirements that judge it or to the reason none does.
package spec

import (
	_ "embed"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Level says how a requirement binds a host.
type Level string

// The levels a requirement can have.
const (
	// Must: the suite fails a host that departs from it.
	Must Level = "MUST"
	// Should: checked, deciding the exit code only under --strict.
	Should Level = "SHOULD"
	// Reference: a choice of the reference host for what the source does
	// not show; never demanded of another host.
	Reference Level = "REFERENCE"
)

// Role says whom a requirement binds.
type Role string

// The roles. A requirement binds a server unless it says otherwise.
const (
	// ServerSide: the host, the MCP server or its authorization server, judged
	// by the features the server half runs.
	ServerSide Role = "server"
	// ClientSide: an MCP client, judged by the client half's features
	// (features/clients), which play the server against it.
	ClientSide Role = "client"
)

// Requirement is one numbered requirement of the source document.
type Requirement struct {
	ID       string `yaml:"id"`
	Section  string `yaml:"section"`
	Level    Level  `yaml:"level"`
	Text     string `yaml:"text"`
	Untested string `yaml:"untested,omitempty"`
	// Derived says why a requirement is inferred from the source rather
	// than stated by it; such a requirement is a SHOULD.
	Derived   string `yaml:"derived,omitempty"`
	CheckedBy string `yaml:"checked_by,omitempty"`
	// Needs are the capabilities (@needs-<name> tags) a run must offer to
	// check the requirement: a cooperating authorization server, tokens.
	Needs []string `yaml:"needs,omitempty"`
	// Role is whom the requirement binds; "" is ServerSide.
	Role Role `yaml:"role,omitempty"`
}

// Binds returns whom the requirement binds: its Role, ServerSide by default.
func (r Requirement) Binds() Role {
	if r.Role == "" {
		return ServerSide
	}
	return r.Role
}

// Sections returns the source sections the requirement comes from, e.g. ["7.3", "8"].
func (r Requirement) Sections() []string {
	var out []string
	for _, s := range strings.Split(r.Section, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Spec is one pack's whole set of requirements, in document order.
type Spec struct {
	// Pack names the specification the requirements restate (Source, Authorization).
	Pack string `yaml:"pack"`
	// Title says in words what the pack restates, and which revision.
	Title string `yaml:"title"`
	// Document is what the pack's sections are sections of, in the words a
	// report puts after "section of the" ("source document", "MCP specification").
	Document     string        `yaml:"document"`
	Requirements []Requirement `yaml:"requirements"`
	byID         map[string]int
}

//go:embed requirements.yaml
var source []byte

//go:embed mcp-authorization/requirements.yaml
var authorization []byte

var idPattern = regexp.MustCompile(`^[A-Z][A-Z0-9]*-[0-9]+$`)

// Parse reads requirements from YAML and checks them: IDs unique and well
// formed, every level known, every untested entry explained.
func Parse(data []byte) (*Spec, error) {
	var s Spec
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("parse requirements: %w", err)
	}
	if s.Pack == "" || s.Title == "" || s.Document == "" {
		return nil, fmt.Errorf("parse requirements: pack, title and document are required")
	}
	s.byID = make(map[string]int, len(s.Requirements))
	for i, r := range s.Requirements {
		switch {
		case !idPattern.MatchString(r.ID):
			return nil, fmt.Errorf("requirement %d: id %q is not of the form AREA-N", i+1, r.ID)
		case r.Text == "" || r.Section == "":
			return nil, fmt.Errorf("requirement %s: text and section are required", r.ID)
		case r.Level != Must && r.Level != Should && r.Level != Reference:
			return nil, fmt.Errorf("requirement %s: unknown level %q", r.ID, r.Level)
		case r.Derived != "" && r.Level != Should:
			return nil, fmt.Errorf("requirement %s: a derived requirement is a SHOULD, never %s", r.ID, r.Level)
		case r.Role != "" && r.Role != ServerSide && r.Role != ClientSide:
			return nil, fmt.Errorf("requirement %s: unknown role %q", r.ID, r.Role)
		case r.Level == Reference && r.CheckedBy == "":
			return nil, fmt.Errorf("requirement %s: a reference choice names the tests that check it (checked_by)", r.ID)
		}
		if _, dup := s.byID[r.ID]; dup {
			return nil, fmt.Errorf("requirement %s: duplicate id", r.ID)
		}
		s.byID[r.ID] = i
	}
	return &s, nil
}

// Get returns the requirement with the given ID.
func (s *Spec) Get(id string) (Requirement, bool) {
	i, ok := s.byID[id]
	if !ok {
		return Requirement{}, false
	}
	return s.Requirements[i], true
}

// IDs returns every requirement ID, sorted.
func (s *Spec) IDs() []string {
	ids := make([]string, 0, len(s.Requirements))
	for _, r := range s.Requirements {
		ids = append(ids, r.ID)
	}
	sort.Strings(ids)
	return ids
}
