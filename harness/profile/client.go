package profile

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"
)

// Client is how conform runs the user's MCP client for the client half of a
// pack (conform run --client): conform plays the servers, so a profile that
// holds a client needs no target.
type Client struct {
	// Command runs the client once through sh, with {url} (the scenario's
	// MCP endpoint), {state_dir} (a directory that lasts for the whole run),
	// and, when it calls a tool, {tool} and {args}.
	Command string `yaml:"command"`
	// ToolCommand is a second command for the scenarios that need the
	// client to call a tool, when Command names no {tool}.
	ToolCommand string `yaml:"tool_command"`
	// Env is added to the client's environment.
	Env map[string]string `yaml:"env"`
	// Timeout bounds one run of the client (a Go duration, "90s"); a
	// minute when empty.
	Timeout string `yaml:"timeout"`
	// ClientID is a client the user registered beforehand for the client
	// to use, which conform's scripted authorization servers then know;
	// empty when the client registers itself.
	ClientID string `yaml:"client_id"`
	// ClientSecretEnv names the environment variable holding ClientID's
	// secret, when that client is confidential.
	ClientSecretEnv string `yaml:"client_secret_env"`
	// MetadataURL is the client ID metadata document the client names
	// itself by (MCP Client Registration, section 1): its client_id. The
	// scripted authorization servers fetch it as they fetch any
	// URL-formatted client_id; given here, it tells conform the client has
	// one, which the registration priority order judges.
	MetadataURL string `yaml:"client_metadata_url"`
}

// DefaultClientTimeout bounds one run of the client when the profile does
// not.
const DefaultClientTimeout = time.Minute

// TimeoutOrDefault is the client's timeout, parsed.
func (c Client) TimeoutOrDefault() (time.Duration, error) {
	if c.Timeout == "" {
		return DefaultClientTimeout, nil
	}
	d, err := time.ParseDuration(c.Timeout)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("profile: client.timeout must be a positive duration such as 90s, got %q", c.Timeout)
	}
	return d, nil
}

// Environment is Env as KEY=VALUE, sorted, for the client's process.
func (c Client) Environment() []string {
	var env []string
	for k, v := range c.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}

// Validate checks what running the client needs: a command that names
// {url}, since a client never given the scripted server's URL could only
// talk to something else.
func (c Client) Validate() error {
	if strings.TrimSpace(c.Command) == "" {
		return fmt.Errorf("profile: client.command is required to run a client (or give --client)")
	}
	for key, cmd := range map[string]string{"client.command": c.Command, "client.tool_command": c.ToolCommand} {
		if cmd != "" && !strings.Contains(cmd, "{url}") {
			return fmt.Errorf("profile: %s names no {url}: the client must be pointed at the scenario's MCP endpoint", key)
		}
	}
	for k := range c.Env {
		if k == "" || strings.ContainsAny(k, "= ") {
			return fmt.Errorf("profile: client.env key %q is not an environment variable name", k)
		}
	}
	if c.ClientSecretEnv != "" && c.ClientID == "" {
		return fmt.Errorf("profile: client.client_secret_env names the secret of no client: set client.client_id too")
	}
	if c.MetadataURL != "" {
		if c.ClientID != "" {
			return fmt.Errorf("profile: client.client_id and client.client_metadata_url both name the client; give the one it uses first (a client registered beforehand comes first in MCP Client Registration's priority order)")
		}
		if u, err := url.Parse(c.MetadataURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return fmt.Errorf("profile: client.client_metadata_url %q is not an absolute http or https URL", c.MetadataURL)
		}
	}
	_, err := c.TimeoutOrDefault()
	return err
}
