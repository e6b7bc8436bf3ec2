// Package profile reads the target profile: the contract between the suite and
// a host under test (PRODUCT.md section 4). Every key has a default that
// matches the reference host, so a bare target URL works against it.
package profile

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
)

// Profile describes one host under test.
type Profile struct {
	// Target is the base URL; the MCP endpoint is {target}/mcp.
	Target string `yaml:"target"`
	// CredentialEnv names the environment variable holding a credential this host issued.
	CredentialEnv string `yaml:"credential_env"`
	// Peer is a second instance of the same host software, for instance binding.
	Peer  *Peer `yaml:"peer,omitempty"`
	Paths Paths `yaml:"paths"`
	Tools Tools `yaml:"tools"`
	// ContentCollections says whether the host declares content collections.
	ContentCollections bool  `yaml:"content_collections"`
	OAuth              OAuth `yaml:"oauth"`
	// RegistrationLimit bounds the registrations sent while probing the per-address limit.
	RegistrationLimit int `yaml:"registration_limit"`
	// Slow allows scenarios that wait in real time (the five-minute window).
	Slow bool `yaml:"slow"`
	// MCPRevision pins the MCP revision the harness speaks ("2026-07-28",
	// "2025-11-25", "2025-06-18" or "2025-03-26"); "" negotiates it as the
	// official clients do, newest first.
	MCPRevision string `yaml:"mcp_revision"`
	// MCPAuthorization is what the mcp-authorization pack needs.
	MCPAuthorization MCPAuthorization `yaml:"mcp_authorization"`
	// Notes say what reading the profile changed in it (a target given as
	// its MCP endpoint), for the command line to say once.
	Notes []string `yaml:"-"`
	// RawTarget is the target as the user gave it, before BaseURL.
	RawTarget string `yaml:"-"`
	// Keys are the top-level keys the profile file set, for choosing the
	// pack it was written for when the user named none.
	Keys map[string]bool `yaml:"-"`
	// MCPEndpoint is the MCP endpoint's URL when it is not {target}/mcp: the
	// mcp-authorization pack takes the target as the endpoint itself, at
	// any path, as MCP clients take it (EndpointFromTarget).
	MCPEndpoint string `yaml:"-"`
	// Client is the user's MCP client, for the client half of a pack.
	Client *Client `yaml:"client,omitempty"`
}

// Peer is a second instance of the host software.
type Peer struct {
	Target        string `yaml:"target"`
	CredentialEnv string `yaml:"credential_env"`
}

// Paths are the paths of the host that scenarios use, by role.
type Paths struct {
	Open        string      `yaml:"open"`
	OpenDir     string      `yaml:"open_dir"`
	Closed      string      `yaml:"closed"`
	ClosedDir   string      `yaml:"closed_dir"`
	Missing     string      `yaml:"missing"`
	Writable    string      `yaml:"writable"`
	Unsupported Unsupported `yaml:"unsupported"`
	// ClosedUnsupported is a path closed to network clients for Operation
	// (gate 3) whose provider also lacks Operation (gate 4): the gate order
	// decides which refusal a caller sees.
	ClosedUnsupported Unsupported `yaml:"closed_unsupported"`
}

// Unsupported is a path opened by gate 3 whose provider lacks Operation (gate 4).
type Unsupported struct {
	Path      string `yaml:"path"`
	Operation string `yaml:"operation"`
}

// Tools are the host's tool names, by role.
type Tools struct {
	List        string   `yaml:"list"`
	Stat        string   `yaml:"stat"`
	Read        string   `yaml:"read"`
	Write       string   `yaml:"write"`
	Allowlisted []string `yaml:"allowlisted"`
	Privileged  []string `yaml:"privileged"`
	// Content are the names of the content tools (shown in tools/list only
	// when collections are declared).
	Content []string `yaml:"content"`
}

// OAuth are the host's authorization endpoints: paths relative to the target,
// or absolute URLs for an authorization server on another origin.
type OAuth struct {
	Register            string `yaml:"register"`
	Token               string `yaml:"token"`
	DeviceAuthorization string `yaml:"device_authorization"`
	// DeviceApprovalCommand approves {user_code} without a person (for CI).
	DeviceApprovalCommand string `yaml:"device_approval_command"`
	// AuthorizationApprovalCommand stands in for the person at an
	// authorization endpoint: it gets {authorization_url} and prints the
	// URL the authorization server redirected to.
	AuthorizationApprovalCommand string `yaml:"authorization_approval_command"`
}

// Endpoints are the authorization endpoints in the form the OAuth client takes.
func (o OAuth) Endpoints() oauthclient.Endpoints {
	return oauthclient.Endpoints{Register: o.Register, Token: o.Token, DeviceAuthorization: o.DeviceAuthorization}
}

// Default returns the profile of the reference host at target (a base URL,
// or the MCP endpoint, see SetTarget).
func Default(target string) Profile {
	p := Profile{
		CredentialEnv: "CONFORM_CREDENTIAL",
		Paths: Paths{
			Open:        "/public/readme.md",
			OpenDir:     "/public",
			Closed:      "/base/notes.txt",
			ClosedDir:   "/base",
			Missing:     "/public/no-such-file",
			Writable:    "/overlay/scratch.txt",
			Unsupported: Unsupported{Path: "/overlay/readonly/about.md", Operation: "write"},
			// /public is opened by a networkRead rule, which opens no
			// writes, and its provider is read-only.
			ClosedUnsupported: Unsupported{Path: "/public/readme.md", Operation: "write"},
		},
		Tools: Tools{
			List: "afs_list", Stat: "afs_stat", Read: "afs_read", Write: "afs_write",
			Allowlisted: []string{"afs_list", "afs_stat", "afs_read"},
			Privileged:  []string{"afs_write"},
			Content:     []string{"search_content", "list_content", "get_content"},
		},
		OAuth: OAuth{
			Register:            "/oauth/register",
			Token:               "/oauth/token",
			DeviceAuthorization: "/oauth/device_authorization",
		},
		RegistrationLimit: 50,
	}
	p.MCPAuthorization = defaultAuthorization()
	p.SetTarget("target", target)
	return p
}

// mcpPath is where the MCP endpoint sits under the base URL (source 1).
const mcpPath = "/mcp"

// BaseURL returns the base URL that raw names: raw without a trailing slash
// and, when its path ends in /mcp, without that. Every other MCP client takes
// the endpoint's own URL, so a user may well give it; trimmed says whether
// /mcp was removed.
func BaseURL(raw string) (base string, trimmed bool) {
	base = strings.TrimRight(raw, "/")
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || !strings.HasSuffix(u.Path, mcpPath) {
		return base, false
	}
	return strings.TrimRight(strings.TrimSuffix(base, mcpPath), "/"), true
}

// SetTarget sets Target from raw, as BaseURL reads it; key is how the user
// gave it ("target", "--target"), for the note that says /mcp was removed.
func (p *Profile) SetTarget(key, raw string) {
	p.RawTarget = raw
	p.Target = p.baseURL(key, raw)
}

// baseURL is raw without a final /mcp, with a note when it had one. It
// leaves RawTarget alone: the peer's URL goes through it too, and is never
// the target's.
func (p *Profile) baseURL(key, raw string) string {
	base, trimmed := BaseURL(raw)
	if trimmed {
		p.Notes = append(p.Notes, fmt.Sprintf("%s %s is the MCP endpoint; using its base URL %s (the suite adds %s itself)", key, raw, base, mcpPath))
	}
	return base
}

// EndpointFromTarget makes the target as given the MCP endpoint, at
// whatever path it names (the mcp-authorization pack: an MCP server's users
// give its endpoint's URL, which need not end in /mcp), and drops the note
// that /mcp was removed from it.
func (p *Profile) EndpointFromTarget() {
	if p.RawTarget == "" {
		return
	}
	p.MCPEndpoint = p.RawTarget
	p.Notes = slices.DeleteFunc(p.Notes, func(n string) bool { return strings.Contains(n, "is the MCP endpoint; using its base URL") })
}

// Load reads a profile file. Keys it does not set keep their defaults; an
// unknown key is an error, so a typo never silently falls back to a default.
func Load(path string) (Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Profile{}, fmt.Errorf("read profile: %w", err)
	}
	return Parse(data)
}

// Parse reads a profile from YAML over the defaults.
func Parse(data []byte) (Profile, error) {
	p := Default("")
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Profile{}, fmt.Errorf("profile: %w", err)
	}
	lines, err := checkKeys(&doc)
	if err != nil {
		return Profile{}, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		return Profile{}, typeErrors(err, lines)
	}
	p.Keys = map[string]bool{}
	for _, key := range lines {
		top, _, _ := strings.Cut(key, ".")
		p.Keys[top] = true
	}
	p.SetTarget("target", p.Target)
	if p.Peer != nil {
		p.Peer.Target = p.baseURL("peer.target", p.Peer.Target)
	}
	return p, p.Validate()
}

// Validate checks what a run cannot do without, before anything is sent: a
// mistake in the profile is a usage error that names the key, never a
// departure blamed on the host.
func (p Profile) Validate() error {
	if p.Client != nil {
		if err := p.Client.Validate(); err != nil {
			return err
		}
		// A profile for the client half alone names no target: conform
		// plays the servers.
		if p.Target == "" && !p.Keys["target"] {
			return nil
		}
	}
	if err := checkURL("target", p.Target); err != nil {
		return err
	}
	if p.Peer != nil {
		if err := checkURL("peer.target", p.Peer.Target); err != nil {
			return err
		}
		// The peer is another instance (source 5.2): the same URL would make
		// the instance-binding scenarios judge the target against itself.
		if p.Peer.Target == p.Target {
			return fmt.Errorf("profile: peer.target is the target itself (%s); name a second instance of the host", p.Target)
		}
	}
	if p.RegistrationLimit < 1 {
		return fmt.Errorf("profile: registration_limit must be at least 1")
	}
	if p.MCPRevision != "" && !slices.Contains(mcpclient.Revisions, p.MCPRevision) {
		return fmt.Errorf("profile: mcp_revision must be one of %s, or empty to negotiate; got %q", strings.Join(mcpclient.Revisions, ", "), p.MCPRevision)
	}
	if err := p.Paths.validate(); err != nil {
		return err
	}
	if err := p.Tools.validate(); err != nil {
		return err
	}
	if err := p.OAuth.validate(); err != nil {
		return err
	}
	return p.MCPAuthorization.validate()
}

func checkURL(key, raw string) error {
	if raw == "" {
		return fmt.Errorf("profile: %s is required", key)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("profile: %s must be an http or https URL, got %q", key, raw)
	}
	if u.User != nil {
		return fmt.Errorf("profile: %s must not carry credentials; name an environment variable in credential_env", key)
	}
	return nil
}

// validate checks that every path set is absolute: the suite sends them as
// they are, and a relative one would be resolved by each host its own way.
func (ps Paths) validate() error {
	for _, kv := range []struct{ key, path string }{
		{"paths.open", ps.Open}, {"paths.open_dir", ps.OpenDir},
		{"paths.closed", ps.Closed}, {"paths.closed_dir", ps.ClosedDir},
		{"paths.missing", ps.Missing}, {"paths.writable", ps.Writable},
		{"paths.unsupported.path", ps.Unsupported.Path},
		{"paths.closed_unsupported.path", ps.ClosedUnsupported.Path},
	} {
		if kv.path != "" && !strings.HasPrefix(kv.path, "/") {
			return fmt.Errorf("profile: %s must be an absolute path (starting with /), got %q", kv.key, kv.path)
		}
	}
	for _, kv := range []struct{ key, op string }{
		{"paths.unsupported.operation", ps.Unsupported.Operation},
		{"paths.closed_unsupported.operation", ps.ClosedUnsupported.Operation},
	} {
		if kv.op != "" && !slices.Contains(operations, kv.op) {
			return fmt.Errorf("profile: %s must be one of %s, got %q", kv.key, strings.Join(operations, ", "), kv.op)
		}
	}
	return nil
}

// operations are the operations on paths the source names (section 7.4),
// each done by the tool of the same name under tools.
var operations = []string{"list", "stat", "read", "write"}

// validate checks that no tool is named in two of the lists: a tool anonymous
// callers may call is not one that needs a credential (source 5.3, 5.5), and
// a content tool is listed only when collections are declared (source 1),
// so a scenario about one list would judge the other's tool by the wrong rule.
func (ts Tools) validate() error {
	lists := []struct {
		key   string
		names []string
	}{
		{"tools.allowlisted", ts.Allowlisted},
		{"tools.privileged", ts.Privileged},
		{"tools.content", ts.Content},
	}
	seen := map[string]string{}
	for _, l := range lists {
		for _, name := range l.names {
			if first, ok := seen[name]; ok && first != l.key {
				return fmt.Errorf("profile: %s and %s both name %q; a tool belongs to one of them", first, l.key, name)
			}
			seen[name] = l.key
		}
	}
	return nil
}

// validate checks the endpoint keys: each is a path on the target, or an
// absolute URL when the authorization server sits on another origin (the
// protected resource names its authorization servers, RFC 9728 section 2).
func (o OAuth) validate() error {
	for _, kv := range []struct{ key, value string }{
		{"oauth.register", o.Register},
		{"oauth.token", o.Token},
		{"oauth.device_authorization", o.DeviceAuthorization},
	} {
		if err := checkEndpoint(kv.key, kv.value); err != nil {
			return err
		}
	}
	return nil
}

func checkEndpoint(key, value string) error {
	// "//host/x" is a reference to another host without a scheme; it is
	// neither a path on the target nor an absolute URL.
	if strings.HasPrefix(value, "/") && !strings.HasPrefix(value, "//") {
		return nil
	}
	u, err := url.Parse(value)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		if u.User != nil {
			return fmt.Errorf("profile: %s must not carry credentials", key)
		}
		return nil
	}
	return fmt.Errorf("profile: %s must be a path starting with / or an absolute http or https URL, got %q", key, value)
}

// Credential returns the target's credential from the environment, or "".
func (p Profile) Credential() string { return env(p.CredentialEnv) }

// PeerCredential returns the peer's credential from the environment, or "".
func (p Profile) PeerCredential() string {
	if p.Peer == nil {
		return ""
	}
	return env(p.Peer.CredentialEnv)
}

func env(name string) string {
	if name == "" {
		return ""
	}
	return strings.TrimSpace(os.Getenv(name))
}
