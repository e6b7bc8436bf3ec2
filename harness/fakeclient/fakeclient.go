// Package fakeclient is an MCP client written from the packs' client rules
// for testing the client half of the suite: with no Break it is the
// compliant reference client, built from the harness's own MCP client
// (mcpclient) and OAuth pieces (authcode, oauthclient); each Break departs
// from one client requirement, so that tests can prove every client
// scenario able to fail, as fakehost and fakeauthz do for servers.
//
// It is a one-shot command (cmd/fakeclient): it lists the server's tools, or
// calls one, signing in as the pack says when the server asks, keeping what
// it learns (client IDs, tokens) in a state directory, and exits 0 only when
// its call succeeded.
package fakeclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/wire"
)

// Pack names which client rules the client follows.
const (
	// Authorization follows MCP 2026-07-28's authorization: the code flow.
	Authorization = "mcp-authorization"
	// Source follows the source document: registration and the device grant.
	Source = "source"
)

// Options are one run of the client.
type Options struct {
	// Pack is Authorization or Source.
	Pack string
	// URL is the MCP endpoint.
	URL string
	// StateDir keeps client IDs and tokens between runs.
	StateDir string
	// Tool, when set, is called with Args (a JSON object); otherwise the
	// client lists the tools.
	Tool, Args string
	// ClientID, when set, is a client registered beforehand, which the
	// client uses instead of registering (Client Registration); ClientSecret
	// is its secret when it is confidential, sent in HTTP Basic.
	ClientID, ClientSecret string
	// MetadataURL, when set, is the client ID metadata document the client
	// names itself by where the authorization server takes them, after a
	// ClientID and before registering (Client Registration's priority
	// order).
	MetadataURL string
	// Revision, when set, is the one MCP revision the client speaks, never
	// falling back from it ("" negotiates, 2026-07-28 first): a client of
	// 2026-07-28 alone is no departure, since falling back is for "a client
	// that supports both" eras (transport, Backward Compatibility).
	Revision string
	// Breaks are the departures to make.
	Breaks []Break
	// Browser is the command that opens a URL ($BROWSER); "" prints it only.
	Browser string
	// Out is where the client says what it does.
	Out io.Writer
	// HTTP sends every request.
	HTTP *http.Client
}

// ErrToolFailed is the error of a call whose result had isError true.
var ErrToolFailed = errors.New("the tool call failed (isError true)")

// client is one run.
type client struct {
	Options
	state *state
	mcp   *mcpclient.Client
	// firstPKCE is the run's first PKCE verifier and challenge, which
	// ChallengeReused sends again.
	firstPKCE [2]string
}

// Run runs the client once.
func Run(ctx context.Context, o Options) error {
	if o.HTTP == nil {
		o.HTTP = &http.Client{}
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	st, err := loadState(o.StateDir)
	if err != nil {
		return err
	}
	c := &client{Options: o, state: st, mcp: mcpclient.New(o.URL, o.HTTP).Pin(o.Revision)}
	switch o.Pack {
	case Authorization:
		err = c.runAuthorization(ctx)
	case Source:
		err = c.runSource(ctx)
	default:
		return fmt.Errorf("unknown pack %q", o.Pack)
	}
	if serr := st.save(); serr != nil && err == nil {
		err = serr
	}
	return err
}

func (c *client) broken(b Break) bool { return slices.Contains(c.Breaks, b) }

// call sends the run's one request: tools/call when a tool is named,
// tools/list otherwise.
func (c *client) call(ctx context.Context, auth string) (*mcpclient.Reply, error) {
	if c.Tool == "" {
		return c.mcp.Call(ctx, auth, "tools/list", nil)
	}
	args := map[string]any{}
	if c.Args != "" {
		if err := json.Unmarshal([]byte(c.Args), &args); err != nil {
			return nil, fmt.Errorf("the arguments are not a JSON object: %w", err)
		}
	}
	return c.mcp.Call(ctx, auth, "tools/call", map[string]any{"name": c.Tool, "arguments": args})
}

// finish judges the reply to the run's call: a JSON-RPC result, and for a
// tools/call one whose isError is false ("A 200 is not success", source 7.1).
func (c *client) finish(r *mcpclient.Reply) error {
	if r.Status != http.StatusOK || r.Message == nil || r.Message.Error != nil {
		return fmt.Errorf("the server answered HTTP %d", r.Status)
	}
	if c.Tool == "" {
		fmt.Fprintf(c.Out, "tools: %s\n", r.Message.Result)
		return nil
	}
	res, err := r.ToolResult()
	if err != nil {
		return fmt.Errorf("read the tool result: %w", err)
	}
	fmt.Fprintf(c.Out, "result: %s\n", res.Text)
	if res.IsError && !c.broken(IsErrorIgnored) {
		return ErrToolFailed
	}
	return nil
}

// state is what the client keeps between runs.
type state struct {
	path string
	// Clients are client IDs by issuer (or by base URL for the source pack).
	Clients map[string]string `json:"clients"`
	// Tokens are access tokens by the resource they were obtained for,
	// Refresh their refresh tokens.
	Tokens  map[string]string `json:"tokens"`
	Refresh map[string]string `json:"refresh"`
}

func loadState(dir string) (*state, error) {
	st := &state{Clients: map[string]string{}, Tokens: map[string]string{}, Refresh: map[string]string{}}
	if dir == "" {
		return st, nil
	}
	st.path = filepath.Join(dir, "fakeclient.json")
	data, err := os.ReadFile(st.path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the client's state: %w", err)
	}
	if err := json.Unmarshal(data, st); err != nil {
		return nil, fmt.Errorf("read the client's state %s: %w", st.path, err)
	}
	if st.Refresh == nil {
		st.Refresh = map[string]string{}
	}
	return st, nil
}

func (s *state) save() error {
	if s.path == "" {
		return nil
	}
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode the client's state: %w", err)
	}
	if err := os.WriteFile(s.path, data, 0o600); err != nil {
		return fmt.Errorf("write the client's state: %w", err)
	}
	return nil
}

// tokenKey is where a token for resource is kept: by resource, so that a
// token goes only to the server it was obtained for, unless TokenShared.
func (c *client) tokenKey(resource string) string {
	if c.broken(TokenShared) {
		return "any"
	}
	return resource
}

// bearer is an Authorization value for token ("" for none).
func bearer(token string) string {
	if token == "" {
		return ""
	}
	return "Bearer " + token
}

// challengeParam is a parameter of the Bearer challenge in a reply's
// WWW-Authenticate header, "" when absent.
func challengeParam(h http.Header, param string) string {
	return wire.ChallengeParam(h.Values("WWW-Authenticate"), "Bearer", param)
}
