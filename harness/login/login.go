// Package login is the logic of `conform login --target URL` (PRODUCT.md
// section 3): sign the suite in to a host with the device grant (RFC 8628)
// and keep what a well-behaved client keeps. Source section 7.3 says a client
// registers once and keeps its client_id, because registration is rate
// limited per address; section 3 says an unused registration is removed
// after seven days, after which the client registers again; section 5.8 says
// the device grant's credential has no expiry, so it is stored for later runs.
//
// The sign-in is oauthclient's DeviceSignIn, the one the harness's own
// sign-ins run; its device authorization request goes through
// golang.org/x/oauth2, the ecosystem's client, so that a login also shows
// the host interoperates with it (PRODUCT.md section 7).
package login

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/statefile"
	"github.com/conform-mcp/conform/harness/target"
)

// Options configure one login.
type Options struct {
	// Target is the host's base URL.
	Target string
	// Endpoints are the host's OAuth paths relative to Target; empty fields
	// take the spec's paths.
	Endpoints oauthclient.Endpoints
	// Out receives the instructions for the person signing in; nil discards them.
	Out io.Writer
	// StateDir holds the state file; empty means $CONFORM_STATE_DIR, else
	// os.UserConfigDir()/conform.
	StateDir string
	// HTTP is the client every request goes through; nil means http.DefaultClient.
	HTTP *http.Client
}

// stateFile is the file under the state directory; it holds client IDs and
// credentials, so it is private to the user (0600).
const stateFile = "login.json"

// targetState is what is kept for one target.
type targetState struct {
	ClientID   string `json:"client_id,omitempty"`
	Credential string `json:"credential,omitempty"`
}

// Run signs in to the target: it registers once (or reuses the kept
// client_id), starts a device authorization, tells the person where to
// approve it, polls until the host issues a credential, and stores it.
func Run(ctx context.Context, o Options) (string, error) {
	host := normalize(o.Target)
	if host == "" {
		return "", errors.New("login: a target URL is required")
	}
	dir, err := stateDir(o.StateDir)
	if err != nil {
		return "", err
	}
	ep := withDefaults(o.Endpoints)
	hc := o.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, hc)

	states, err := load(dir)
	if err != nil {
		return "", err
	}
	keep := func(clientID string) error {
		st := states[host]
		st.ClientID = clientID
		states[host] = st
		return save(dir, states)
	}
	signIn := oauthclient.DeviceSignIn{
		Client:     oauthclient.New(host, ep, hc),
		ClientName: "conform login",
		ClientID:   states[host].ClientID,
		Registered: keep,
		Forgotten: func(clientID string) {
			fmt.Fprintf(out, "The host no longer knows client %s; registering again.\n", clientID)
		},
		Start: func(ctx context.Context, clientID string) (*oauthclient.DeviceAuthorization, error) {
			return deviceAuth(ctx, config(host, ep, clientID))
		},
		Present: func(_ context.Context, da *oauthclient.DeviceAuthorization) error {
			// RFC 8628 section 3.3: the person visits the verification URI
			// and enters the user code, or opens the complete URI that
			// carries it.
			fmt.Fprintf(out, "To sign in, visit %s and enter the code %s\n", da.VerificationURI, da.UserCode)
			if da.VerificationURIComplete != "" {
				fmt.Fprintf(out, "or open %s\n", da.VerificationURIComplete)
			}
			fmt.Fprintln(out, "Waiting for approval...")
			return nil
		},
		Sleep: target.Sleep,
	}
	access, err := signIn.Run(ctx)
	if errors.Is(err, oauthclient.ErrDeviceCodeExpired) {
		return "", fmt.Errorf("login: %w; run conform login again", err)
	}
	if err != nil {
		return "", fmt.Errorf("login: %w", err)
	}
	st := states[host]
	st.Credential = access
	states[host] = st
	if err := save(dir, states); err != nil {
		return "", err
	}
	fmt.Fprintf(out, "Signed in; the credential is stored in %s\n", filepath.Join(dir, stateFile))
	return access, nil
}

// deviceAuth starts the device authorization through x/oauth2, so that a
// login shows the host interoperates with the ecosystem's client; a 4xx
// other than a throttle is the host refusing the client itself.
func deviceAuth(ctx context.Context, cfg *oauth2.Config) (*oauthclient.DeviceAuthorization, error) {
	da, err := cfg.DeviceAuth(ctx)
	if refused(err) {
		return nil, fmt.Errorf("%w: %w", oauthclient.ErrClientRefused, err)
	}
	if err != nil {
		return nil, err
	}
	return &oauthclient.DeviceAuthorization{
		DeviceCode: da.DeviceCode, UserCode: da.UserCode,
		VerificationURI: da.VerificationURI, VerificationURIComplete: da.VerificationURIComplete,
		Interval: time.Duration(da.Interval) * time.Second, Expiry: da.Expiry,
	}, nil
}

// StoredCredential returns the credential a previous login stored for the
// target, for the runner to fall back on when the profile's environment
// variable is empty. An empty stateDir means $CONFORM_STATE_DIR, else the
// default directory.
func StoredCredential(stateDir, target string) (string, bool) {
	dir, err := Dir(stateDir)
	if err != nil {
		return "", false
	}
	states, err := load(dir)
	if err != nil {
		return "", false
	}
	c := states[normalize(target)].Credential
	return c, c != ""
}

func normalize(target string) string { return strings.TrimRight(strings.TrimSpace(target), "/") }

// withDefaults fills the paths a caller left empty with the profile's defaults.
func withDefaults(ep oauthclient.Endpoints) oauthclient.Endpoints {
	def := profile.Default("").OAuth.Endpoints()
	if ep.Register == "" {
		ep.Register = def.Register
	}
	if ep.Token == "" {
		ep.Token = def.Token
	}
	if ep.DeviceAuthorization == "" {
		ep.DeviceAuthorization = def.DeviceAuthorization
	}
	return ep
}

// config describes the host to x/oauth2. The suite's client is public (no
// secret), so client_id travels in the request body (RFC 6749 section 2.3.1,
// RFC 8628 section 3.4).
func config(target string, ep oauthclient.Endpoints, clientID string) *oauth2.Config {
	return &oauth2.Config{
		ClientID: clientID,
		Endpoint: oauth2.Endpoint{
			DeviceAuthURL: oauthclient.Resolve(target, ep.DeviceAuthorization),
			TokenURL:      oauthclient.Resolve(target, ep.Token),
			AuthStyle:     oauth2.AuthStyleInParams,
		},
	}
}

// refused says whether the host refused the client itself (a 4xx other than
// a throttle), the sign of a removed registration.
func refused(err error) bool {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.Response == nil {
		return false
	}
	s := re.Response.StatusCode
	return s >= 400 && s < 500 && s != http.StatusTooManyRequests
}

// StateDirEnv names the environment variable that says where conform keeps
// what it stores, for every command, when --state-dir does not.
const StateDirEnv = "CONFORM_STATE_DIR"

// Dir is the state directory every command keeps and finds what conform
// stores in: dir when given, else $CONFORM_STATE_DIR, else
// os.UserConfigDir()/conform.
func Dir(dir string) (string, error) {
	if dir == "" {
		dir = os.Getenv(StateDirEnv)
	}
	if dir != "" {
		return dir, nil
	}
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("login: find the state directory: %w", err)
	}
	return filepath.Join(base, "conform"), nil
}

// stateDir returns the state directory, created private to the user.
func stateDir(dir string) (string, error) {
	dir, err := Dir(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("login: create %s: %w", dir, err)
	}
	return dir, nil
}

func load(dir string) (map[string]targetState, error) {
	states := map[string]targetState{}
	data, err := os.ReadFile(filepath.Join(dir, stateFile))
	if errors.Is(err, os.ErrNotExist) {
		return states, nil
	}
	if err != nil {
		return nil, fmt.Errorf("login: read state: %w", err)
	}
	if err := json.Unmarshal(data, &states); err != nil {
		return nil, fmt.Errorf("login: read state %s: %w", filepath.Join(dir, stateFile), err)
	}
	return states, nil
}

// save writes the state whole through a temporary file, so that an
// interrupted login never leaves a truncated file; both are 0600.
func save(dir string, states map[string]targetState) error {
	data, err := json.MarshalIndent(states, "", "  ")
	if err != nil {
		return fmt.Errorf("login: encode state: %w", err)
	}
	if err := statefile.Write(filepath.Join(dir, stateFile), data); err != nil {
		return fmt.Errorf("login: %w", err)
	}
	return nil
}
