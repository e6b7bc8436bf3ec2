// Package registrations keeps, in the state directory, the clients conform
// registered with authorization servers, so that a later run uses them
// again instead of registering anew. Source section 7.3 asks it of every
// client: "A client registers once and keeps its client_id", because
// registration is rate limited per source address (sections 7.3 and 8), and
// a run that registers at every start spends the allowance the scenarios
// that judge registration itself need.
//
// The file is a cache, never a verdict: a missing one is empty, a corrupt
// one is reported and ignored, one that cannot be written is reported and
// the run goes on, registering as it would have without it. A kept client
// the server no longer knows (source section 3 removes an unused
// registration after seven days) is forgotten by whoever finds it refused,
// who registers again.
package registrations

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/conform-mcp/conform/harness/statefile"
)

// File is the store's file under the state directory; it holds client
// secrets, so it is private to the user (0600).
const File = "clients.json"

// Use says what a kept client is for. Clients for different uses are kept
// apart even at one server with one redirect URI: each use's requests then
// spend only that client's own allowance (a device authorization limit per
// client, RFC 8628 section 5.2), and a client one use authorized is not
// authorized again by another.
type Use string

// The uses of kept clients.
const (
	// DeviceSignIn is the public client a run signs in with through the
	// device grant, before the scenarios (source section 2).
	DeviceSignIn Use = "device-sign-in"
	// DeviceScenarios is the public client the source pack's scenarios use
	// as "a registered client" (source section 7.3).
	DeviceScenarios Use = "device-scenarios"
	// CodeTokens is the client a run obtains the mcp-authorization pack's
	// tokens with through the authorization code flow, before the scenarios.
	CodeTokens Use = "code-tokens"
)

// Key names one kept client.
type Key struct {
	// Server is the authorization server: its issuer, or its registration
	// endpoint's URL when the client was registered without metadata.
	Server string `json:"server"`
	// RedirectURI is the redirect URI the client was registered with.
	RedirectURI string `json:"redirect_uri"`
	// Use is what the client is for.
	Use Use `json:"use"`
}

// Client is what a registration answered (RFC 7591 section 3.2.1).
type Client struct {
	ID string `json:"client_id"`
	// Secret and Method are the client_secret and token_endpoint_auth_method
	// the registration answered with; "" for a public client.
	Secret string `json:"client_secret,omitempty"`
	Method string `json:"token_endpoint_auth_method,omitempty"`
}

// entry is one kept client as the file holds it.
type entry struct {
	Key
	Client
}

// Store is the kept clients of one state directory. It is safe for
// concurrent use. A nil *Store keeps nothing: Get finds nothing, and Keep
// and Forget do nothing (the in-process reference host, started afresh for
// every run, has nothing to keep).
type Store struct {
	path string
	// warn receives what went wrong with the file; the run goes on.
	warn io.Writer

	mu sync.Mutex
	// kept is the file's content as last read or written.
	kept map[Key]Client
	// confirmed holds the clients a server accepted in this process, by
	// key: a caller need not try them again before use.
	confirmed map[Key]string
}

// Open reads the store of the state directory dir. A missing file is an
// empty store; an unreadable or corrupt one is said on warn and taken as
// empty, to be replaced by the next client kept.
func Open(dir string, warn io.Writer) *Store {
	if warn == nil {
		warn = io.Discard
	}
	s := &Store{path: filepath.Join(dir, File), warn: warn, confirmed: map[Key]string{}}
	s.kept = s.read()
	return s
}

// read returns the file's clients; any failure is said and taken as none.
func (s *Store) read() map[Key]Client {
	kept := map[Key]Client{}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return kept
	}
	if err != nil {
		fmt.Fprintf(s.warn, "conform: ignoring the kept clients: %v\n", err)
		return kept
	}
	var entries []entry
	if err := json.Unmarshal(data, &entries); err != nil {
		fmt.Fprintf(s.warn, "conform: ignoring the kept clients in %s, which cannot be read (%v); clients are registered anew\n", s.path, err)
		return kept
	}
	for _, e := range entries {
		if e.ID != "" {
			kept[e.Key] = e.Client
		}
	}
	return kept
}

// Get returns the client kept for k, and whether a server accepted it in
// this process already.
func (s *Store) Get(k Key) (c Client, confirmed, ok bool) {
	if s == nil {
		return Client{}, false, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok = s.kept[k]
	return c, ok && s.confirmed[k] == c.ID, ok
}

// Keep stores c for k, replacing what was kept for it, and counts it
// confirmed: its server has just registered it.
func (s *Store) Keep(k Key, c Client) {
	if s == nil || c.ID == "" {
		return
	}
	s.update(func(kept map[Key]Client) { kept[k] = c })
	s.Confirm(k, c.ID)
}

// Confirm records that the server accepted the client id kept for k.
func (s *Store) Confirm(k Key, id string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.confirmed[k] = id
}

// Forget drops the client id kept for k, one its server refused; a client
// kept for k since (another scenario's new registration) stays.
func (s *Store) Forget(k Key, id string) {
	if s == nil {
		return
	}
	s.update(func(kept map[Key]Client) {
		if kept[k].ID == id {
			delete(kept, k)
		}
	})
}

// update applies change to the file's current content, read again so that
// what another conform process kept since is kept too, and writes it whole.
func (s *Store) update(change func(map[Key]Client)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.read()
	change(kept)
	s.kept = kept
	if err := s.write(kept); err != nil {
		fmt.Fprintf(s.warn, "conform: could not keep the registered clients: %v\n", err)
	}
}

// write replaces the file through a temporary file in the same directory,
// so that an interrupted run never leaves a truncated one; os.CreateTemp
// makes it 0600, and the directory is private to the user. The entries are
// sorted, so that the same clients always make the same file.
func (s *Store) write(kept map[Key]Client) error {
	entries := make([]entry, 0, len(kept))
	for k, c := range kept {
		entries = append(entries, entry{k, c})
	}
	slices.SortFunc(entries, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.RedirectURI, b.RedirectURI), cmp.Compare(a.Use, b.Use))
	})
	data, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", s.path, err)
	}
	return statefile.Write(s.path, data)
}
