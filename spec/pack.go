package spec

import (
	"fmt"
	"sort"
	"strings"
)

// The packs the suite embeds. Source is the default: the document this
// project was founded on. Authorization restates the MCP specification's
// authorization rules for servers and their authorization servers.
const (
	Source        = "source"
	Authorization = "mcp-authorization"
)

// packs maps each pack name to its embedded requirements.
var packs = map[string][]byte{Source: source, Authorization: authorization}

// Packs returns the names of the embedded packs, the default first.
func Packs() []string {
	out := make([]string, 0, len(packs))
	for name := range packs {
		if name != Source {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return append([]string{Source}, out...)
}

// LoadPack parses the named pack ("" is the default). An unknown name is a
// usage error that lists the packs there are.
func LoadPack(name string) (*Spec, error) {
	if name == "" {
		name = Source
	}
	data, ok := packs[name]
	if !ok {
		return nil, fmt.Errorf("no specification pack %q (packs: %s)", name, strings.Join(Packs(), ", "))
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", name, err)
	}
	if s.Pack != name {
		return nil, fmt.Errorf("pack %s: its file names itself %q", name, s.Pack)
	}
	return s, nil
}

// LoadAll parses every pack and checks that no requirement ID is used by two
// of them, so that a tag, a report line or an expected-failure entry names
// one requirement wherever it appears.
func LoadAll() ([]*Spec, error) {
	var out []*Spec
	owner := map[string]string{}
	for _, name := range Packs() {
		s, err := LoadPack(name)
		if err != nil {
			return nil, err
		}
		for _, r := range s.Requirements {
			if other, dup := owner[r.ID]; dup {
				return nil, fmt.Errorf("requirement %s is in pack %s and pack %s", r.ID, other, name)
			}
			owner[r.ID] = name
		}
		out = append(out, s)
	}
	return out, nil
}
