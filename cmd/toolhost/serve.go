package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/conform-mcp/conform/impl/clientaddr"
	"github.com/conform-mcp/conform/impl/config"
	"github.com/conform-mcp/conform/impl/connlimit"
	"github.com/conform-mcp/conform/impl/host"
	"github.com/conform-mcp/conform/impl/owner"
	"github.com/conform-mcp/conform/impl/owner/strength"
)

// serveOptions are the flags of toolhost serve.
type serveOptions struct {
	config, addr, data, publicURL string
	allowedHosts, trustedProxies  []string
	drain                         time.Duration
	// rates override the configuration's rate_limits, flag by flag.
	rates rateFlags
	// maxConns, maxConnsPerAddress and idleTimeout override the config's
	// connections when not zero.
	maxConns, maxConnsPerAddress int
	idleTimeout                  time.Duration
}

func serveCommand(stdout, stderr io.Writer) *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve MCP, OAuth and discovery until interrupted",
		Long: `Serve the reference host. With no --config, an embedded default serves a
small demo tree: /public (opened by a networkRead rule), /base (closed),
/overlay (a writable overlay) and /overlay/readonly (an overlay whose
provider cannot write). State persists under --data.

Every absolute URL the host prints (the 401 challenge, the metadata, the
verification URI, mcp.json) starts with --public-url, by default the listen
address. Requests whose Host header names neither the public URL's host, an
--allowed-host nor a loopback name are refused (DNS rebinding).

The host holds at most --max-connections connections, and at most
--max-connections-per-address from one address; when a cap is reached, the
connection that has waited longest without a request is closed to make
room, else the one whose request has arrived for a second at less than
1 KiB/s. A connection that finds no room is answered 503 with Retry-After.
A keep-alive connection is closed after --idle-timeout without one. Many
clients behind one address (a NAT, or a proxy not named with
--trusted-proxy) share its --max-connections-per-address.

SIGTERM or an interrupt stops accepting connections and lets the requests
in flight finish, for up to --drain-timeout; the exit status is 0 unless
requests had to be cut off.

The rate limits key on the connection's address. Behind a reverse proxy,
name it with --trusted-proxy: the client address it forwards in
X-Forwarded-For is then believed, from that proxy only.

--registration-burst and --registration-every (and the device ones) set the
per-address rate limits of the configuration's rate_limits. To run the suite
against one instance several times in a row, shorten --registration-every
(200ms, say): the registration-limit probe spends the whole allowance.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serveHost(ctx, stop, o, stdout, stderr)
		},
	}
	cmd.Flags().StringVar(&o.config, "config", "", "configuration file (YAML); the embedded default when empty")
	cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on")
	cmd.Flags().StringVar(&o.data, "data", "data", "data directory: the store and the overlay's files (created 0700)")
	cmd.Flags().StringVar(&o.publicURL, "public-url", "", "URL clients reach the host by (default: the config's public_url, else http://ADDR)")
	cmd.Flags().StringArrayVar(&o.allowedHosts, "allowed-host", nil, "another host name requests may carry in Host, such as a reverse proxy's (repeatable)")
	cmd.Flags().StringArrayVar(&o.trustedProxies, "trusted-proxy", nil, "a reverse proxy (IP address or CIDR prefix) whose X-Forwarded-For names the client the rate limits key on (repeatable)")
	cmd.Flags().DurationVar(&o.drain, "drain-timeout", 10*time.Second, "how long requests in flight may run on after SIGTERM")
	o.rates.bind(cmd.Flags())
	cmd.Flags().IntVar(&o.maxConns, "max-connections", 0, fmt.Sprintf("most connections held at once (default: the config's connections.max, else %d)", config.DefaultMaxConnections))
	cmd.Flags().IntVar(&o.maxConnsPerAddress, "max-connections-per-address", 0, fmt.Sprintf("most connections held from one address, one /64 for IPv6 (default: the config's connections.max_per_address, else %d)", config.DefaultMaxConnectionsPerAddress))
	cmd.Flags().DurationVar(&o.idleTimeout, "idle-timeout", 0, fmt.Sprintf("how long a keep-alive connection may wait for its next request (default: the config's connections.idle_timeout, else %s)", config.DefaultIdleTimeout))
	return cmd
}

// serveHost runs the host until ctx ends, then drains. stop restores the
// default signal handling, so that a second interrupt ends the process at
// once.
func serveHost(ctx context.Context, stop func(), o serveOptions, stdout, stderr io.Writer) error {
	cfg, err := config.Default()
	if o.config != "" {
		cfg, err = config.Load(o.config)
	}
	if err != nil {
		return err
	}
	if o.publicURL != "" {
		cfg.PublicURL = o.publicURL
	}
	cfg.AllowedHosts = append(cfg.AllowedHosts, o.allowedHosts...)
	cfg.TrustedProxies = append(cfg.TrustedProxies, o.trustedProxies...)
	o.rates.apply(&cfg.RateLimits)
	if o.maxConns != 0 {
		cfg.Connections.Max = o.maxConns
	}
	if o.maxConnsPerAddress != 0 {
		cfg.Connections.MaxPerAddress = o.maxConnsPerAddress
	}
	if o.idleTimeout != 0 {
		cfg.Connections.IdleTimeout = o.idleTimeout
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	if err := dataDir(o.data, logger); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer ln.Close()
	if cfg.PublicURL == "" {
		if cfg.PublicURL, err = listenURL(o.addr, ln.Addr()); err != nil {
			return err
		}
	}
	h, err := host.Open(cfg, host.OpenOptions{DataDir: o.data, Logger: logger, OwnerSecret: os.Getenv(owner.EnvVar), JudgeSecret: strength.Check})
	if err != nil {
		return err
	}
	defer h.Close()

	// A trusted proxy's connections carry every client's requests: they
	// count against the total cap only.
	proxies, err := clientaddr.New(cfg.TrustedProxies)
	if err != nil {
		return err
	}
	caps := cfg.Connections.Caps()
	caps.Shared = proxies.Trusts
	// The listener is plain HTTP/1.1: a connection refused for a cap is
	// told so with 503 and Retry-After.
	caps.Refusal = connlimit.HTTPRefusal
	capped := connlimit.Listen(ln, caps)
	srv := &http.Server{
		Handler:           capped.Bodies(h.Handler()),
		ConnContext:       capped.ConnContext,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       cfg.Connections.Idle(),
		MaxHeaderBytes:    64 << 10,
		ConnState:         capped.ConnState,
	}
	fmt.Fprintf(stdout, "toolhost serving %s/mcp (listening on %s, data in %s)\n", cfg.PublicURL, ln.Addr(), o.data)
	fmt.Fprintln(stdout, ownerSecretNote(o.data))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(capped) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	stop()
	logger.Info("stopping: letting the requests in flight finish", "drain_timeout", o.drain)
	drain, cancel := context.WithTimeout(context.Background(), o.drain)
	defer cancel()
	if err := srv.Shutdown(drain); err != nil {
		// The deadline passed with requests still running: cut them off,
		// and say so in the exit status.
		_ = srv.Close()
		return fmt.Errorf("requests still running after the %s drain timeout were cut off", o.drain)
	}
	return nil
}

// dataDir creates dir readable by its owner only, and warns when an
// existing one is readable by others: it holds the store (signing secret,
// credential hashes) and the overlay's files.
func dataDir(dir string, logger *slog.Logger) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	if perm := fi.Mode().Perm(); perm&0o044 != 0 {
		logger.Warn("the data directory is readable by group or others; it holds the host's secrets: chmod 700 it",
			"dir", dir, "mode", fmt.Sprintf("%#o", perm))
	}
	return nil
}

// listenURL is the default public URL: the address as given, with the port
// the listener got. An address that names no host, or every interface,
// says nothing about the name clients use, so it needs --public-url.
func listenURL(addr string, got net.Addr) (string, error) {
	name, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--addr %s: %w", addr, err)
	}
	if ip := net.ParseIP(name); name == "" || ip != nil && ip.IsUnspecified() {
		return "", fmt.Errorf("--addr %s listens on every interface; give --public-url, the URL clients reach the host by", addr)
	}
	_, port, err := net.SplitHostPort(got.String())
	if err != nil {
		return "", fmt.Errorf("listen: %w", err)
	}
	return "http://" + net.JoinHostPort(name, port), nil
}
