package spec

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Party names whom a normative sentence binds.
type Party string

// The parties a sentence can bind.
const (
	Client              Party = "client"
	ResourceServer      Party = "resource-server"
	AuthorizationServer Party = "authorization-server"
)

// The reasons a sentence may go unchecked: each Sentence.Unchecked begins
// with one of them, and goes on to say why. Whom the sentence binds is no
// reason: each pack judges clients (its client half, the CLI-N
// requirements) as well as servers.
const (
	// NotObservable: the other side of the conversation cannot see the
	// sentence kept or broken (see Sentence.Observable); the reason says why.
	NotObservable = "not observable: "
	// OutOfScope: the sentence could be seen, and the pack leaves it alone
	// for the reason given, which says what judging it would take.
	OutOfScope = "out of scope: "
)

// Sentence is one normative sentence (MUST, SHOULD, REQUIRED, RECOMMENDED and
// their negations) of a text a pack restates, with what judges it.
type Sentence struct {
	ID string `yaml:"id"`
	// Sentence quotes the text, as briefly as its rule allows.
	Sentence string `yaml:"sentence"`
	// Where names the document and section.
	Where string  `yaml:"where"`
	Binds []Party `yaml:"binds"`
	// Observable says whether the other side of the conversation can see
	// the sentence kept or broken. For a sentence binding a server: a
	// client talking HTTP to the MCP server and its authorization server.
	// For a sentence binding a client: the servers it talks to (the
	// scripted MCP server, its authorization server on another origin, a
	// second MCP server, and the browser stand-in that delivers the
	// redirect), through the requests the client sends them and how its run
	// ends. A sentence binding both is observable when either half is.
	Observable bool `yaml:"observable"`
	// Requirements are the IDs of the pack's requirements that judge it.
	Requirements []string `yaml:"requirements,omitempty"`
	// Unchecked says why no requirement judges it.
	Unchecked string `yaml:"unchecked,omitempty"`
	// ClientUnchecked says, for a sentence binding a client and a server
	// whose requirements judge only the server, why no client requirement
	// judges the client's part; it begins as Unchecked does.
	ClientUnchecked string `yaml:"client_unchecked,omitempty"`
}

// BindsServer reports whether the sentence binds a resource server or an
// authorization server (the host under test plays both in the source pack).
func (s Sentence) BindsServer() bool {
	for _, p := range s.Binds {
		if p == ResourceServer || p == AuthorizationServer {
			return true
		}
	}
	return false
}

// BindsClient reports whether the sentence binds a client (an MCP client,
// or the source document's client of the host).
func (s Sentence) BindsClient() bool {
	return slices.Contains(s.Binds, Client)
}

// Inventory is every normative sentence of the texts one pack restates.
type Inventory struct {
	Sentences []Sentence `yaml:"sentences"`
}

//go:embed sentences.yaml
var sourceSentences []byte

//go:embed mcp-authorization/sentences.yaml
var authorizationSentences []byte

// inventories maps each pack name to its embedded inventory.
var inventories = map[string][]byte{Source: sourceSentences, Authorization: authorizationSentences}

// sentenceID is DOCUMENT-section-n, e.g. RFC9728-3.3-1 or MCP-AUTHZ-9.2-4.
var sentenceID = regexp.MustCompile(`^[A-Z][A-Z0-9]*(-[A-Z]+)?-[0-9]+(\.[0-9]+)*-[0-9]+$`)

// LoadInventory parses the named pack's sentence inventory ("" is the
// default pack).
func LoadInventory(pack string) (*Inventory, error) {
	if pack == "" {
		pack = Source
	}
	data, ok := inventories[pack]
	if !ok {
		return nil, fmt.Errorf("no sentence inventory for pack %q (packs: %s)", pack, strings.Join(Packs(), ", "))
	}
	inv, err := ParseInventory(data)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", pack, err)
	}
	return inv, nil
}

// ParseInventory reads an inventory from YAML and checks each entry on its
// own: an id of the form DOCUMENT-section-n used once, a sentence and where
// it is, known parties, and either requirements or a reason of a known kind,
// never both and never neither; and a client_unchecked reason, of a known
// kind, only beside requirements of a sentence binding both sides.
func ParseInventory(data []byte) (*Inventory, error) {
	var inv Inventory
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&inv); err != nil {
		return nil, fmt.Errorf("parse sentences: %w", err)
	}
	seen := make(map[string]bool, len(inv.Sentences))
	for i, s := range inv.Sentences {
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("sentence %d (%s): %w", i+1, s.ID, err)
		}
		if seen[s.ID] {
			return nil, fmt.Errorf("sentence %s: duplicate id", s.ID)
		}
		seen[s.ID] = true
	}
	return &inv, nil
}

func (s Sentence) check() error {
	switch {
	case !sentenceID.MatchString(s.ID):
		return fmt.Errorf("id %q is not of the form DOCUMENT-section-n", s.ID)
	case s.Sentence == "" || s.Where == "":
		return fmt.Errorf("sentence and where are required")
	case len(s.Binds) == 0:
		return fmt.Errorf("binds names no party")
	case len(s.Requirements) > 0 && s.Unchecked != "":
		return fmt.Errorf("names requirements and says why none judges it")
	case len(s.Requirements) == 0 && s.Unchecked == "":
		return fmt.Errorf("names no requirement and says not why (unchecked)")
	case s.Unchecked != "" && !knownReason(s.Unchecked):
		return fmt.Errorf("unchecked reason %q begins with none of %q, %q", s.Unchecked, NotObservable, OutOfScope)
	case s.ClientUnchecked != "" && (len(s.Requirements) == 0 || !s.BindsClient() || !s.BindsServer()):
		return fmt.Errorf("client_unchecked is for a sentence binding a client and a server whose requirements judge the server")
	case s.ClientUnchecked != "" && !knownReason(s.ClientUnchecked):
		return fmt.Errorf("client_unchecked reason %q begins with none of %q, %q", s.ClientUnchecked, NotObservable, OutOfScope)
	}
	for _, p := range s.Binds {
		if p != Client && p != ResourceServer && p != AuthorizationServer {
			return fmt.Errorf("binds unknown party %q", p)
		}
	}
	return nil
}

// knownReason says whether r begins with a known kind of reason and goes on
// to give one.
func knownReason(r string) bool {
	for _, k := range []string{NotObservable, OutOfScope} {
		if strings.HasPrefix(r, k) && strings.TrimSpace(r[len(k):]) != "" {
			return true
		}
	}
	return false
}
